import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteTableStorage } from '../../../src/storage/sqlite-table-storage';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import { TableCouplingStore } from '../../../src/twoway/table-coupling-store';
import { startTestAzurite } from '../../support/azurite';
import { runCouplingStoreContract } from '../../contract/coupling-store.contract';

runCouplingStoreContract('TableCouplingStore on SQLite tables', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-couplings-'));
  const storage = SqliteTableStorage.open(dir);
  return {
    store: new TableCouplingStore(storage),
    storage,
    close: async () => {
      await storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

runCouplingStoreContract('TableCouplingStore on Azurite', async () => {
  const azurite = await startTestAzurite();
  const storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() }, { maxRetries: 0 });
  return {
    store: new TableCouplingStore(storage),
    storage,
    close: async () => {
      await storage.close();
      await azurite.stop();
    },
  };
});
