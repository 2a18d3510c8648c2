import { getChangesActivity } from '../../../functions/GetChangesActivity';
import { getChangesOrchestrator } from '../../../functions/GetChangesOrchestrator';
import { jobState } from '../../../functions/JobState';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import type { GetChangesOutput } from '../../../src/detect/durable/durable-contract';
import { runGetChangesActivity } from '../../../src/detect/durable/get-changes-activity';
import { activityDependencies } from '../../../src/runtime/runtime-dependencies';
import { DurableDriver } from '../../../src/host/durable-driver';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';
import { runOrchestration } from '../../unit/detect/durable/support/durable-replay';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

function insertAccounts(f: SyncFixture, count: number): void {
  const insert = f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
  for (let i = 1; i <= count; i++) insert.run(`D-${i}`, `Account ${i}`, 'Köln', `2026-01-01T10:00:0${i}.000Z`);
}

/** The durable detection path on a real runtime: SQLite source, local bus, Azurite watermarks. */
describe('durable detection on a real runtime', () => {
  let f: SyncFixture;
  beforeEach(async () => {
    f = await createSyncFixture();
    setRuntimeFactory(async () => f.runtime);
  });
  afterEach(async () => {
    await f.close();
  });

  it('runs the Functions orchestrator, entity and activity on the replay engine: pages of 3, watermark not persisted', async () => {
    insertAccounts(f, 7);
    const entityStates = new Map<string, string>();
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts'] }, {
      activities: { GetChangesActivity: getChangesActivity },
      entities: { JobState: jobState },
      entityStates,
    });

    expect(run.status).toBe('Completed');
    expect(run.calls.filter((c) => c.kind === 'activity').map((c) => (c.input as { pageNumber: number }).pageNumber)).toEqual([0, 1, 2]);
    expect((run.output as GetChangesOutput).jobs).toEqual([
      { jobName: 'crm-accounts', outcome: 'Succeeded', pages: 3, detected: 7, sent: 7, watermark: '2026-01-01T10:00:07.0000000Z' },
    ]);
    expect(JSON.parse(entityStates.get('@jobstate@jobs') ?? 'null')).toEqual([]);
    expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(7);
    expect((await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBeNull();

    const results = await f.drain();
    expect(results.filter((r) => r.jobName === 'crm-accounts').map((r) => r.outcome)).toEqual(Array(7).fill('Success'));
    expect(f.erp.prepare('SELECT COUNT(*) AS n FROM customers').get()).toEqual({ n: 7 });
  });

  it('runs the same orchestration with the local driver, ending on an empty page after full ones', async () => {
    insertAccounts(f, 6);
    const driver = new DurableDriver({ activity: (input) => runGetChangesActivity(activityDependencies(f.runtime), input) });
    const id = driver.start({ jobs: ['crm-accounts', 'crm-contacts'] });
    const final = await driver.waitForCompletion(id);

    expect(final.runtimeStatus).toBe('Completed');
    expect(final.output?.jobs).toEqual([
      { jobName: 'crm-accounts', outcome: 'Succeeded', pages: 3, detected: 6, sent: 6, watermark: '2026-01-01T10:00:06.0000000Z' },
      { jobName: 'crm-contacts', outcome: 'Succeeded', pages: 1, detected: 0, sent: 0, watermark: '0001-01-01T00:00:00.0000000Z' },
    ]);
    expect(driver.jobsInProgress()).toEqual([]);
    expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(6);
    expect((await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBeNull();
    await driver.close();
  });
});
