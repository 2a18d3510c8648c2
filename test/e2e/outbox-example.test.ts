import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../../src/cli/main';

const EXAMPLE = path.resolve(__dirname, '../../examples/outbox');

/**
 * The outbox example (examples/outbox) end to end, as written: its tables made from its own
 * outbox.sql, outbox rows written as an application writes them, then `highwater start --once`
 * on the folder (local bus and local SQLite tables): the ERP ends as the shop's changes say —
 * inserts, updates, a delete, the outbox id as each row's version — the dead row is set aside
 * with its reason, every other row is processed, and a second start sends nothing again.
 */
let dir: string;
let out: string[];
let err: string[];
const ENV = ['AzureWebJobsStorage', 'HIGHWATER_DATA_DIR', 'HIGHWATER_LOCAL_TABLES', 'HIGHWATER_LOCAL_PROCESSING'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-outbox-example-'));
  for (const file of fs.readdirSync(EXAMPLE)) fs.copyFileSync(path.join(EXAMPLE, file), path.join(dir, file));
  const sql = fs.readFileSync(path.join(dir, 'outbox.sql'), 'utf8');
  const shop = new Database(path.join(dir, 'shop.db'));
  shop.exec(sql);
  // As the application writes them: one row per change, in the change's transaction.
  const write = shop.prepare('INSERT INTO outbox (aggregate_type, aggregate_key, action, payload) VALUES (?, ?, ?, ?)');
  const rows: Array<[string, string, string, string | null]> = [
    ['customer', '1', 'insert', '{"id": 1, "name": " Ada ", "city": "Berlin"}'],
    ['customer', '2', 'insert', '{"id": 2, "name": "Grace", "city": "Arlington"}'],
    ['customer', '1', 'update', '{"id": 1, "name": "Ada", "city": "Hamburg"}'],
    ['invoice', '77', 'insert', '{"id": 77}'],
    ['customer', '3', 'insert', '{"id": 3, "name": "Edsger"'],
    ['customer', '2', 'delete', '{"id": 2}'],
    ['customer', '4', 'upsert', '{"id": 4, "name": "Barbara", "city": "Boston"}'],
  ];
  shop.transaction(() => rows.forEach((r) => write.run(...r)))();
  shop.close();
  const erp = new Database(path.join(dir, 'erp.db'));
  erp.exec(/CREATE TABLE customers \(.*\);/.exec(sql)![0]);
  erp.close();
  delete process.env.AzureWebJobsStorage;
  process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
  process.env.HIGHWATER_LOCAL_PROCESSING = 'inline';
  process.env.HIGHWATER_DATA_DIR = path.join(dir, 'data');
});

afterAll(() => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  out = [];
  err = [];
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.map(String).join(' ')));
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.map(String).join(' ')));
  jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void err.push(args.map(String).join(' ')));
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

const select = (file: string, sql: string) => {
  const db = new Database(path.join(dir, file), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

describe('the outbox example, end to end', () => {
  it('brings the ERP to the state the outbox describes, sets the bad row aside, and sends nothing twice', async () => {
    expect(await runCli(['start', '--once', '--port', '0', '--stall-timeout', '10', '--config', dir])).toBe(0);
    expect(select('erp.db', 'SELECT shop_id, name, city, shop_version FROM customers ORDER BY shop_id')).toEqual([
      { shop_id: 1, name: 'Ada', city: 'Hamburg', shop_version: 3 },
      { shop_id: 4, name: 'Barbara', city: 'Boston', shop_version: 7 },
    ]);
    expect(select('shop.db', 'SELECT id, processed_at IS NOT NULL AS done, dead_reason FROM outbox ORDER BY id')).toEqual([
      { id: 1, done: 1, dead_reason: null },
      { id: 2, done: 1, dead_reason: null },
      { id: 3, done: 1, dead_reason: null },
      // Another aggregate type: no job of this folder reads it.
      { id: 4, done: 0, dead_reason: null },
      { id: 5, done: 0, dead_reason: expect.stringMatching(/^payload is not JSON: /) },
      { id: 6, done: 1, dead_reason: null },
      { id: 7, done: 1, dead_reason: null },
    ]);
    expect(err.filter((line) => line.includes('outbox row 5 set aside (dead_reason): payload is not JSON'))).toHaveLength(1);

    out = [];
    expect(await runCli(['start', '--once', '--port', '0', '--stall-timeout', '10', '--config', dir])).toBe(0);
    expect(out.join('\n')).toMatch(/^ {2}applied to the target +0$/m);
  }, 90_000);
});
