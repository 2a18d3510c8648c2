import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { highwaterTables } from '../../../src/cli/commands/tables';
import { LOCAL_TABLES_FILE } from '../../../src/storage/sqlite-table-storage';
import { LOCAL_INSTANCE_TABLE, openTableStorage } from '../../../src/storage/table-client-factory';
import { codeFacts } from '../../unit/infra/code-facts';
import { captureCliOutput, type CliOutput } from '../bad-input/support/cli-output';

/** `highwater tables copy --to sqlite|azurite`: the local tables moved between a local Azurite and `tables.db`. */
const saved = { ...process.env };
let dir: string;
let output: CliOutput;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-tables-copy-'));
  delete process.env.AzureWebJobsStorage;
  delete process.env.HIGHWATER_TABLES_ENDPOINT;
  process.env.HIGHWATER_DATA_DIR = dir;
  process.env.HIGHWATER_AZURITE_PORT = String(await freePort());
});

afterAll(() => {
  process.env = saved;
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  output = captureCliOutput();
});

afterEach(() => output.restore());
const out = () => output.stdout;
const err = () => output.stderr.join('');

const settings = () => ({ dataDir: dir, azuritePort: process.env.HIGHWATER_AZURITE_PORT });
const sqliteFile = () => path.join(dir, LOCAL_TABLES_FILE);

it('copies every table of the local Azurite into an empty tables.db, and refuses to copy over rows', async () => {
  const azurite = await openTableStorage(settings());
  await (await azurite.table('watermark')).upsert({ partitionKey: 'watermark', rowKey: 'crm-accounts', properties: { Watermark: '2026-01-01T00:00:00.0000000Z', LastCronRun: new Date('2026-12-03T10:00:00Z') } });
  await (await azurite.table('appliedhashes')).submitBatch(Array.from({ length: 150 }, (_, i) => ({ kind: 'upsert' as const, row: { partitionKey: `crm-accounts|${i % 16}`, rowKey: `k${i}`, properties: { Hash: `h${i}` } } })));
  await azurite.close();

  expect(await runCli(['tables', 'copy', '--to', 'sqlite'])).toBe(0);
  expect(err()).not.toContain('are new');
  expect(out().filter((line) => /^(watermark|appliedhashes|jobs):/.test(line))).toEqual(['jobs: 0 rows', 'watermark: 1 row', 'appliedhashes: 150 rows']);
  expect(out().at(-1)).toMatch(new RegExp(`^copied from Azurite at 127\\.0\\.0\\.1:\\d+ \\(started, data in .*\\) to SQLite tables in ${sqliteFile().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; now set HIGHWATER_LOCAL_TABLES=sqlite$`));

  const sqlite = await openTableStorage({ ...settings(), localTables: 'sqlite' });
  expect(await (await sqlite.table('watermark')).get('watermark', 'crm-accounts')).toEqual({
    partitionKey: 'watermark',
    rowKey: 'crm-accounts',
    properties: { Watermark: '2026-01-01T00:00:00.0000000Z', LastCronRun: new Date('2026-12-03T10:00:00Z') },
  });
  expect(await (await sqlite.table('appliedhashes')).list()).toHaveLength(150);
  await sqlite.close();

  expect(await runCli(['tables', 'copy', '--to', 'sqlite'])).toBe(2);
  expect(err()).toContain(`SQLite tables in ${sqliteFile()}: table "watermark" already holds 1 row; tables copy writes only into empty tables`);
  // A command on Azurite's tables beside a tables.db says which tables it uses.
  expect(await runCli(['watermark', 'list'])).toBe(0);
  expect(err()).toContain(`${sqliteFile()} exists but HIGHWATER_LOCAL_TABLES is not sqlite: these are Azurite's tables, not those (delete the file if it is no longer used)`);
  output.stderr.length = 0;
  expect(await runCli(['tables', 'copy', '--to', 'azurite'])).toBe(2);
  expect(err()).not.toContain('exists but');
  expect(err()).toMatch(/Azurite at 127\.0\.0\.1:\d+ \(started, data in .*\): table "watermark" already holds 1 row; tables copy writes only into empty tables/);
}, 120_000);

it('names a wrong --to and a storage setting that leaves no local tables to copy', async () => {
  expect(await runCli(['tables', 'copy', '--to', 'redis'])).toBe(2);
  expect(err()).toContain('--to must be azurite or sqlite, got "redis"');
  process.env.AzureWebJobsStorage = 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=c2VjcmV0;EndpointSuffix=core.windows.net';
  try {
    expect(await runCli(['tables', 'copy', '--to', 'sqlite'])).toBe(2);
  } finally {
    delete process.env.AzureWebJobsStorage;
  }
  expect(err()).toContain('tables copy moves the local tables, but AzureWebJobsStorage is set: unset it to copy between the local Azurite and SQLite');
  expect(err()).not.toContain('c2VjcmV0');
});

it('moves every table the code declares except the local Azurite’s own record', async () => {
  const facts = await codeFacts();
  expect([...(await highwaterTables())].sort()).toEqual([...facts.tables].filter((t) => t !== LOCAL_INSTANCE_TABLE).sort());
});
