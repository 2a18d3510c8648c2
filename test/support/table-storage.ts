import os from 'node:os';
import { openTableStorage } from '../../src/storage/table-client-factory';
import type { TableStorage } from '../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from './azurite';

/**
 * Table storage on an in-memory Azurite of the suite's own: started in `beforeAll`, closed in
 * `afterAll`. Call at the top of a test file; use the returned getter inside tests.
 */
export function useTableStorage(): () => TableStorage {
  let azurite: TestAzurite | undefined;
  let storage: TableStorage | undefined;
  beforeAll(async () => {
    azurite = await startTestAzurite();
    storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
  });
  afterAll(async () => {
    await storage?.close();
    await azurite?.stop();
  });
  return () => {
    if (!storage) throw new Error('table storage is used before beforeAll ran');
    return storage;
  };
}
