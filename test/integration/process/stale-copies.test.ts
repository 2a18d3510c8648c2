import { applyOneByOne, type SingleTarget } from '../../../connectors/base/apply-one-by-one';
import { singleTarget } from '../../support/single-target';
import { ConnectorRegistry } from '../../../connectors/base/registry';
import type { TargetConnector } from '../../../connectors/base/target-connector';
import { sqlConnectorFactories, sqliteConnectorFactory } from '../../../connectors/sql';
import { resubmission } from '../../../src/mover/resubmission';
import { TransientError, TransitiveError } from '../../../src/platform/errors';
import { requeueParked } from '../../../src/runtime/scheduled-requeue';
import { silentLogger } from '../../../src/telemetry/logger';
import { FakeClock } from '../../support/fake-clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * The other ways an old message comes back — the scheduled requeue of parked messages, a late
 * retry copy, an old delete resubmitted — must not undo a newer change of its record applied
 * since; a message that comes back with nothing newer applied still is.
 */
describe('stale messages that come back by requeue, retry or resubmit', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-06-01T00:00:00Z');
  /** Upserts of these ids fail once with a transient error, deletes with a missing dependency. */
  const failOnce = new Set<string>();

  function scripted(inner: TargetConnector & SingleTarget): TargetConnector {
    const target: TargetConnector & SingleTarget = {
      ...inner,
      upsert: async (message, mapping) => {
        if (failOnce.delete(String(message.targetKey.crm_id))) throw new TransientError('HTTP 503 Service Unavailable');
        return inner.upsert(message, mapping);
      },
      delete: async (message, mapping) => {
        if (failOnce.delete(String(message.targetKey.crm_id))) throw new TransitiveError('a record this delete needs is missing');
        return inner.delete(message, mapping);
      },
      invokeAction: (...args) => inner.invokeAction(...args),
      getTargetVersion: (...args) => inner.getTargetVersion(...args),
      applyBatch: (batch) => applyOneByOne(target, batch),
      close: () => inner.close(),
    };
    return target;
  }

  beforeAll(async () => {
    const registry = new ConnectorRegistry([
      { ...sqliteConnectorFactory, createTarget: (ctx) => scripted(singleTarget(sqliteConnectorFactory.createTarget!(ctx))) },
      ...sqlConnectorFactories.filter((factory) => factory !== sqliteConnectorFactory),
    ]);
    f = await createSyncFixture({ clock, registry });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  const run = (job: string) => f.runtime.detection.runJob(f.runtime.init.getJob(job));
  const fullName = (id: string) => (f.erp.prepare('SELECT full_name FROM contacts WHERE crm_id = ?').get(id) as { full_name: string } | undefined)?.full_name;
  const account = (id: string, at: string) => f.crm.prepare('INSERT OR REPLACE INTO accounts VALUES (?, ?, ?, ?, NULL)').run(id, `Account ${id}`, 'Berlin', at);

  it('the scheduled requeue sends a parked old change back: ignored, the newer change stays', async () => {
    // Parked: its account does not exist yet (a foreign key of the target).
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-P', 'A-P', 'Old', 'Name', '2026-05-02T10:00:00.000Z');
    await run('crm-contacts');
    expect(await f.drain()).toEqual([expect.objectContaining({ disposition: 'transitive' })]);
    account('A-P', '2026-05-02T10:00:05.000Z');
    await run('crm-accounts');
    f.crm.prepare('UPDATE contacts SET first_name = ?, modified_at = ? WHERE id = ?').run('New', '2026-05-02T10:00:10.000Z', 'C-P');
    await run('crm-contacts');
    await f.drain();
    expect(fullName('C-P')).toBe('New Name');

    const requeued = await requeueParked(
      { bus: f.runtime.bus, settings: f.settings, jobs: () => f.runtime.init.config.jobs, clock, log: silentLogger },
      { file: 'requeue.yaml', enabled: true, schedule: '0 */15 * * * *', maxRequeues: 5, maxMessages: 1000 },
    );
    expect(requeued).toMatchObject({ resubmitted: 1, failed: 0 });
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored' })]);
    expect(fullName('C-P')).toBe('New Name');
  });

  it('a late retry copy of an old change is ignored after the newer one was applied', async () => {
    account('A-R', '2026-05-03T09:00:00.000Z');
    await run('crm-accounts');
    await f.drain();
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-R', 'A-R', 'Old', 'Name', '2026-05-03T10:00:00.000Z');
    failOnce.add('C-R');
    await run('crm-contacts');
    const [first] = await f.drain();
    expect(first).toMatchObject({ disposition: 'retried' });
    // The fix arrives before the retry is due (4 s later).
    f.crm.prepare('UPDATE contacts SET first_name = ?, modified_at = ? WHERE id = ?').run('New', '2026-05-03T10:00:10.000Z', 'C-R');
    await run('crm-contacts');
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success' })]);
    await clock.advance(4_000);
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored' })]);
    expect(fullName('C-R')).toBe('New Name');
  });

  it('a retry copy with nothing newer applied is applied', async () => {
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-OK', 'A-R', 'Only', 'Change', '2026-05-03T11:00:00.000Z');
    failOnce.add('C-OK');
    await run('crm-contacts');
    expect(await f.drain()).toEqual([expect.objectContaining({ disposition: 'retried' })]);
    await clock.advance(4_000);
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success' })]);
    expect(fullName('C-OK')).toBe('Only Change');
  });

  it('an old delete resubmitted after a newer upsert of its record (another job) does not delete it', async () => {
    const { queues } = f.settings;
    account('A-D', '2026-05-04T10:00:00.000Z');
    await run('crm-accounts');
    await f.drain();
    f.crm.prepare('DELETE FROM accounts WHERE id = ?').run('A-D');
    f.crm.prepare('INSERT INTO deleted_accounts VALUES (?, ?)').run('A-D', '2026-05-04T10:00:05.000Z');
    failOnce.add('A-D');
    await run('crm-deleted-accounts');
    // The delete is parked; the account is re-created meanwhile.
    expect(await f.drain()).toEqual([expect.objectContaining({ disposition: 'transitive' })]);
    account('A-D', '2026-05-04T10:00:10.000Z');
    await run('crm-accounts');
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success' })]);

    const [parked] = await f.runtime.bus.receive(queues.transitive.low, { maxMessages: 1 });
    await f.runtime.bus.send(queues.work.low, [resubmission(parked, { queue: queues.transitive.low }, clock.now())]);
    await f.runtime.bus.complete(parked);
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored' })]);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get('A-D')).toEqual({ n: 1 });
    const ignored = (await f.runtime.bus.peek(queues.ignored)).filter((m) => m.applicationProperties.SourceKey === 'A-D');
    expect(ignored.map((m) => m.applicationProperties.IgnoredReason)).toEqual([
      'superseded: a newer change of this record (change tracker 2026-05-04T10:00:10.0000000Z, job "crm-accounts") was applied since',
    ]);
  });
});
