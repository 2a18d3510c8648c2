import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFunctionsRuntime } from '../../../functions/runtime-instance';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

describe('the Functions runtime from app settings', () => {
  let azurite: TestAzurite;
  let dir: string;
  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-fn-runtime-'));
  });
  afterAll(async () => {
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads configuration from the tables, queue names from QUEUE_*, and closes cleanly', async () => {
    const runtime = await createFunctionsRuntime({
      AzureWebJobsStorage: azurite.connectionString,
      HIGHWATER_DATA_DIR: dir,
      QUEUE_HIGH: 'fn-high',
      GetChangesSchedule: '0 * * * * *',
    });
    try {
      expect(runtime.settings.queues.work).toEqual({ high: 'fn-high', normal: 'sbqnormal', low: 'sbqlow' });
      await runtime.init.ensureInitialized();
      expect(runtime.init.config.jobs).toEqual([]);
      expect(await runtime.bus.listQueues()).toContain('fn-high');
    } finally {
      await runtime.close();
    }
  });
});
