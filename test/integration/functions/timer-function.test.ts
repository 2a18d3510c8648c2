import { InvocationContext, type Timer } from '@azure/functions';
import { getChanges } from '../../../functions/GetChanges';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

const tick = (isPastDue = false): Timer => ({ isPastDue, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } });

describe('GetChanges timer on a real runtime', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture();
    setRuntimeFactory(async () => f.runtime);
  });
  afterAll(() => f.close());

  it('runs the due jobs, logs one line per job, and persists the watermark', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('T-1', 'Acme', 'Berlin', '2026-01-01T10:00:00.000Z');
    const logs: string[] = [];
    const context = new InvocationContext({ functionName: 'GetChanges', logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });
    await getChanges(tick(true), context);
    expect(logs).toEqual([
      'warning: GetChanges is running late (the previous run overran or the app was down)',
      'information: job crm-accounts: Succeeded, 1 detected, 1 sent, watermark - → 2026-01-01T10:00:00.0000000Z',
      'information: job crm-contacts: Succeeded, 0 detected, 0 sent, watermark - → 0001-01-01T00:00:00.0000000Z',
      'information: job crm-deleted-accounts: Succeeded, 0 detected, 0 sent, watermark - → 0001-01-01T00:00:00.0000000Z',
    ]);
    expect((await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe('2026-01-01T10:00:00.0000000Z');

    logs.length = 0;
    await getChanges(tick(), context);
    // Every 10 s: at debug level, below host.json's Information, so Azure does not store it.
    expect(logs).toEqual(['debug: no job due']);
  });
});
