import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { toOutgoingMessage } from '../../../src/bus/message-properties';
import { loadRequeueConfig, type LoadedRequeueConfig } from '../../../src/config/requeue-config';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { requeueParked, startScheduledRequeue, type RequeueDependencies, type RequeueRun } from '../../../src/runtime/scheduled-requeue';
import { silentLogger } from '../../../src/telemetry/logger';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * The scheduled requeue on the local bus, real SQLite targets and the real processor: a contact parked
 * because its customer had not arrived is sent back by the scheduled requeue; the count of
 * requeues travels in the message through processing and parking again; at the cap it is left.
 * And end to end: a delete blocked by dependent rows is dead-lettered at once, and the
 * requeue's default rules leave it for a person.
 */
describe('scheduled requeue of parked messages', () => {
  let f: SyncFixture;
  let deps: RequeueDependencies;
  beforeEach(async () => {
    f = await createSyncFixture();
    await f.runtime.init.ensureInitialized();
    deps = { bus: f.runtime.bus, settings: f.settings, jobs: () => f.runtime.init.config.jobs, clock: f.runtime.clock, log: silentLogger };
  });
  afterEach(() => f.close());

  async function requeueFile(body: string): Promise<LoadedRequeueConfig> {
    writeFileSync(path.join(f.dir, 'requeue.yaml'), body);
    const config = await loadRequeueConfig(f.dir);
    if (!config) throw new Error('no requeue config');
    return config;
  }

  const contact = (id: string, customer: string) =>
    toOutgoingMessage(
      createQueueMessage({
        jobName: 'crm-contacts', action: JobActionType.NewUpdate, sourceKey: id, targetKey: { crm_id: id }, changeTracker: '2026-01-01T00:00:00.0000000Z',
        fields: { crm_id: id, customer_crm_id: customer, full_name: 'Ada Lovelace' },
      }),
    );
  const parked = () => f.runtime.bus.peek('sbqtransitivenormal', { maxMessages: 10 });

  it('sends a parked contact back once its customer exists, and it is applied', async () => {
    const config = await requeueFile('requeue: { enabled: true, maxRequeues: 3 }\n');
    await f.runtime.bus.send('sbqnormal', [contact('K-1', 'A-1')]);
    expect((await f.drain()).map((r) => r.disposition)).toEqual(['transitive']);
    f.erp.prepare('INSERT INTO customers (crm_id, name) VALUES (?, ?)').run('A-1', 'Acme');

    const run = await requeueParked(deps, config);

    expect([run.resubmitted, run.capped, run.failed, run.errors]).toEqual([1, 0, 0, []]);
    expect(run.reports.map((r) => r.source)).toEqual(['sbqtransitivehigh', 'sbqtransitivenormal', 'sbqtransitivelow']);
    const [requeued] = await f.runtime.bus.peek('sbqnormal');
    expect(requeued.applicationProperties).toMatchObject({ RequeueCount: 1, JobName: 'crm-contacts', SourceKey: 'K-1' });
    expect(requeued.applicationProperties.ErrorMessage).toBeUndefined();
    expect((await f.drain()).map((r) => r.outcome)).toEqual(['Success']);
    expect(f.erp.prepare('SELECT crm_id FROM contacts').all()).toEqual([{ crm_id: 'K-1' }]);
    expect(await parked()).toEqual([]);
  });

  it('counts the requeues through parking again, and leaves the message parked for a person at the cap', async () => {
    const config = await requeueFile('requeue: { enabled: true, maxRequeues: 2 }\n');
    await f.runtime.bus.send('sbqnormal', [contact('K-2', 'A-404')]);
    await f.drain();
    const counts: unknown[] = [];
    for (let round = 0; round < 2; round++) {
      expect((await requeueParked(deps, config)).resubmitted).toBe(1);
      expect((await f.drain()).map((r) => r.disposition)).toEqual(['transitive']);
      counts.push((await parked())[0].applicationProperties.RequeueCount);
    }
    expect(counts).toEqual([1, 2]);

    const capped: RequeueRun = await requeueParked(deps, config);

    expect([capped.resubmitted, capped.capped]).toEqual([0, 1]);
    const group = capped.reports[1].groups.find((g) => g.decision === 'capped');
    expect(group).toMatchObject({ action: 'None', rule: 'missing-dependency', count: 1 });
    expect((await parked()).map((m) => m.applicationProperties.SourceKey)).toEqual(['K-2']);
    expect(await f.runtime.bus.peek('sbqnormal')).toEqual([]);
  });

  it('a delete blocked by dependent contacts is dead-lettered at once as "dependent records exist"; the requeue leaves it', async () => {
    const config = await requeueFile('requeue: { enabled: true }\n');
    f.erp.prepare('INSERT INTO customers (crm_id, name) VALUES (?, ?)').run('A-1', 'Acme');
    f.erp.prepare('INSERT INTO contacts (crm_id, customer_crm_id, full_name) VALUES (?, ?, ?)').run('K-1', 'A-1', 'Ada');
    const remove = createQueueMessage({ jobName: 'crm-deleted-accounts', action: JobActionType.Delete, sourceKey: 'A-1', targetKey: { crm_id: 'A-1' }, changeTracker: '2026-01-02T00:00:00.0000000Z', fields: {} });
    await f.runtime.bus.send('sbqlow', [toOutgoingMessage(remove)]);

    expect((await f.drain()).map((r) => [r.outcome, r.disposition])).toEqual([['Failed', 'deadLettered']]);
    const [dead] = await f.runtime.bus.peek('sbqlow', { subQueue: 'deadLetter' });
    expect(dead.deadLetterReason).toBe('PermanentError');
    expect(String(dead.applicationProperties.ErrorMessage)).toContain('dependent records exist (foreign key)');
    expect(await parked()).toEqual([]);

    expect((await requeueParked(deps, config)).resubmitted).toBe(0);
    expect(await f.runtime.bus.peek('sbqlow', { subQueue: 'deadLetter' })).toHaveLength(1);
    expect(f.erp.prepare('SELECT crm_id FROM customers').all()).toEqual([{ crm_id: 'A-1' }]);
  });

  it('the local host loop runs on the schedule when enabled, and not at all when off', async () => {
    const runs: RequeueRun[] = [];
    // As the processor parks it: with the error properties the default rules match on.
    const parkedContact = contact('K-3', 'A-404');
    parkedContact.applicationProperties = { ...parkedContact.applicationProperties, ErrorType: 'TransitiveError', ErrorMessage: 'a referenced record is missing (foreign key)' };
    await f.runtime.bus.send('sbqtransitivenormal', [parkedContact]);
    const off = startScheduledRequeue(deps, await requeueFile('requeue: { enabled: false, schedule: "* * * * * *" }\n'), (run) => runs.push(run));
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect([runs.length, (await parked()).length]).toEqual([0, 1]);
    const on = startScheduledRequeue(deps, await requeueFile('requeue: { enabled: true, schedule: "* * * * * *" }\n'), (run) => runs.push(run));
    const deadline = Date.now() + 5_000;
    while (runs.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([on(), off()]);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.reduce((n, r) => n + r.resubmitted, 0)).toBe(1);
    expect((await f.runtime.bus.peek('sbqnormal')).map((m) => m.applicationProperties.RequeueCount)).toEqual([1]);
  });
});
