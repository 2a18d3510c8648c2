import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { runCli } from '../../../src/cli/main';

/**
 * Tables mode for the local host: `highwater config push` fills the configuration tables, and
 * `highwater start --tables` runs from them, as `highwater run` does without `--config` (and as
 * the Functions app does). In-process, on the local bus and local SQLite tables (no Azurite).
 */
let dir: string;
let out: string[];
let err: string[];
const ENV = ['AzureWebJobsStorage', 'HIGHWATER_DATA_DIR', 'HIGHWATER_LOCAL_TABLES', 'HIGHWATER_LOCAL_PROCESSING'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-start-tables-'));
  delete process.env.AzureWebJobsStorage;
  process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
  process.env.HIGHWATER_LOCAL_PROCESSING = 'inline';
  process.env.HIGHWATER_DATA_DIR = path.join(dir, 'data');
  const crm = new Database(path.join(dir, 'crm.db'));
  crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified_at TEXT NOT NULL)');
  const insert = crm.prepare('INSERT INTO accounts VALUES (?, ?, ?)');
  for (let i = 1; i <= 5; i++) insert.run(`A-${i}`, `Account ${i}`, `2026-01-01T10:00:0${i}.000Z`);
  crm.close();
  const erp = new Database(path.join(dir, 'erp.db'));
  erp.exec('CREATE TABLE customers (crm_id TEXT PRIMARY KEY, name TEXT NOT NULL)');
  erp.close();
  const config = {
    // Absolute files: in tables mode relative ones would resolve against the working directory.
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: path.join(dir, 'crm.db') } },
      { name: 'erp', type: 'sqlite', settings: { file: path.join(dir, 'erp.db') } },
    ],
    mappings: [
      {
        name: 'to-erp',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'name', source: 'name' },
        ],
      },
    ],
    jobs: [{ name: 'accounts-to-erp', schedule: '0 */5 * * * *', source: 'crm', target: 'erp', mapping: 'to-erp', watermark: { type: 'datetime', field: 'modified_at' } }],
  };
  const configDir = path.join(dir, 'pushed');
  fs.mkdirSync(configDir);
  for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(configDir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
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

describe('start --tables', () => {
  it('runs the jobs pushed to the configuration tables, with no config folder where it runs', async () => {
    expect(await runCli(['config', 'push', '--config', path.join(dir, 'pushed')])).toBe(0);
    // The pushed folder is gone: only the tables hold the configuration now.
    fs.rmSync(path.join(dir, 'pushed'), { recursive: true });
    const code = await runCli(['start', '--once', '--tables', '--port', '0', '--stall-timeout', '5']);
    expect([code, err.filter((line) => line.startsWith('error:'))]).toEqual([0, []]);
    expect(out.join('\n')).toMatch(/Highwater local host on http:\/\/127\.0\.0\.1:\d+ — config from the configuration tables, tables: /);
    expect(out.join('\n')).toMatch(/^ {2}applied to the target +5$/m);
    const erp = new Database(path.join(dir, 'erp.db'), { readonly: true });
    try {
      expect(erp.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: 5 });
    } finally {
      erp.close();
    }
  }, 60_000);

  it('refuses --tables with --config', async () => {
    expect(await runCli(['start', '--tables', '--config', 'config'])).toBe(2);
    expect(err).toEqual(['error: --tables and --config exclude each other: --tables reads the configuration tables, --config a folder']);
  });
});
