import fs from 'node:fs';
import path from 'node:path';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import { readSettings } from '../../../src/platform/settings';
import { createRuntime } from '../../../src/runtime/runtime';
import { LOCAL_TABLES_FILE } from '../../../src/storage/sqlite-table-storage';
import { openTableStorage, parseLocalTables } from '../../../src/storage/table-client-factory';
import { silentLogger } from '../../../src/telemetry/logger';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/** `HIGHWATER_LOCAL_TABLES=sqlite`: the local host's tables in `<dataDir>/tables.db` instead of Azurite. */
describe('local tables in SQLite', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('reads the setting, naming it and the value when it is neither azurite nor sqlite', () => {
    expect(parseLocalTables(undefined)).toBe('azurite');
    expect(parseLocalTables('SQLite')).toBe('sqlite');
    expect(() => parseLocalTables('lokijs')).toThrow('HIGHWATER_LOCAL_TABLES: expected azurite or sqlite, got "lokijs"');
    expect(readSettings({ HIGHWATER_LOCAL_TABLES: ' sqlite ' }).localTables).toBe('sqlite');
  });

  it('keeps rows in <dataDir>/tables.db across opens; a connection string still wins', async () => {
    const dataDir = path.join(f.dir, 'data-tables');
    const storage = await openTableStorage({ dataDir, localTables: 'sqlite' });
    expect(storage.description).toBe(`SQLite tables in ${path.join(dataDir, LOCAL_TABLES_FILE)}`);
    await (await storage.table('kept')).upsert({ partitionKey: 'p', rowKey: 'r', properties: { V: 1 } });
    await storage.close();
    const again = await openTableStorage({ dataDir, localTables: 'sqlite' });
    expect(await (await again.table('kept')).get('p', 'r')).toEqual({ partitionKey: 'p', rowKey: 'r', properties: { V: 1 } });
    await again.close();
    const account = await openTableStorage({ dataDir, localTables: 'sqlite', storageConnectionString: f.settings.storageConnectionString });
    expect(account.description).not.toMatch(/SQLite/);
    await account.close();
  });

  it('says so when it starts new tables beside the Azurite data of an earlier run (nothing is migrated)', async () => {
    const dataDir = path.join(f.dir, 'data-switched');
    fs.mkdirSync(path.join(dataDir, 'azurite'), { recursive: true });
    const notices: string[] = [];
    const storage = await openTableStorage({ dataDir, localTables: 'sqlite' }, { log: (line) => notices.push(line) });
    await storage.close();
    (await openTableStorage({ dataDir, localTables: 'sqlite' }, { log: (line) => notices.push(line) })).close();
    expect(notices).toEqual([
      `SQLite tables in ${path.join(dataDir, LOCAL_TABLES_FILE)} are new: the tables in ${path.join(dataDir, 'azurite')} (Azurite) are not read; every job starts without a watermark (to keep them: stop, delete ${path.join(dataDir, LOCAL_TABLES_FILE)}, run \`highwater tables copy --to sqlite\`)`,
    ]);
  });

  it('refuses a tables file that is not an SQLite database, naming the file', async () => {
    const dataDir = path.join(f.dir, 'data-corrupt');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, LOCAL_TABLES_FILE), 'not a database, just text that is long enough to be read as a header');
    await expect(openTableStorage({ dataDir, localTables: 'sqlite' })).rejects.toThrow(`the local tables file ${path.join(dataDir, LOCAL_TABLES_FILE)} cannot be used: file is not a database`);
  });

  it('runs a job end to end on them: configuration, watermark, runs and the target written', async () => {
    const settings = { ...f.settings, storageConnectionString: undefined, dataDir: path.join(f.dir, 'data-sqlite'), localTables: 'sqlite' };
    const runtime = await createRuntime({ settings, configDir: f.dir, log: silentLogger });
    try {
      expect(runtime.storage.description).toMatch(/^SQLite tables in /);
      await runtime.init.ensureInitialized();
      const insert = f.crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?)');
      for (let i = 1; i <= 30; i++) insert.run(`S-${i}`, `Account ${i}`, 'Basel', `2026-02-01T00:00:00.${String(i).padStart(3, '0')}Z`);
      const run = await runtime.detection.runJob(runtime.init.getJob('crm-accounts')!);
      expect(run.sentByQueue).toEqual({ [settings.queues.work.high]: 30 });
      for (;;) {
        const messages: ReceivedMessage[] = await runtime.bus.receive(settings.queues.work.high, { maxMessages: 50 });
        if (messages.length === 0) break;
        await runtime.processor.executeBatch(messages.map((message) => ({ message, settler: busSettler(runtime.bus, message) })), settings.queues.work.high);
      }
      expect(f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'S-%'").get()).toEqual({ n: 30 });
      expect(await runtime.watermarks.getWatermarkByJobName('crm-accounts')).toMatchObject({ watermark: '2026-02-01T00:00:00.0300000Z', persisted: true });
    } finally {
      await runtime.close();
    }
    expect(fs.existsSync(path.join(settings.dataDir, LOCAL_TABLES_FILE))).toBe(true);
  });
});
