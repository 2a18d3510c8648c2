import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { runCli } from '../../../src/cli/main';

/**
 * `highwater start --once` always ends: with targets that cannot take their messages — a SQLite
 * target whose file lies in a directory that does not exist, a PostgreSQL target whose password
 * names an app setting that is not set — it gives up once no message has reached its end for
 * `--stall-timeout` seconds, prints the summary and what waits (per target, with why), and exits
 * 1. Nothing is dead-lettered: the messages stay queued for the next start. In-process, on the
 * local bus and local SQLite tables (no Azurite), each data folder starting empty.
 */
let dir: string;
let out: string[];
let err: string[];
const ENV = ['AzureWebJobsStorage', 'HIGHWATER_DATA_DIR', 'HIGHWATER_LOCAL_TABLES', 'HIGHWATER_LOCAL_PROCESSING', 'HW_ONCE_TEST_PG_PASSWORD'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-once-stall-'));
  const configDir = path.join(dir, 'config');
  fs.mkdirSync(configDir);
  delete process.env.AzureWebJobsStorage;
  delete process.env.HW_ONCE_TEST_PG_PASSWORD;
  process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
  const crm = new Database(path.join(dir, 'crm.db'));
  crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified_at TEXT NOT NULL)');
  const insert = crm.prepare('INSERT INTO accounts VALUES (?, ?, ?)');
  for (let i = 1; i <= 12; i++) insert.run(`A-${i}`, `Account ${i}`, `2026-01-01T10:00:${String(i).padStart(2, '0')}.000Z`);
  crm.close();
  const fields = [
    { target: 'crm_id', source: 'id' },
    { target: 'name', source: 'name' },
  ];
  const config = {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: path.join(dir, 'crm.db') } },
      { name: 'erp', type: 'sqlite', settings: { file: path.join(dir, 'no-such-dir', 'erp.db') } },
      { name: 'ledger', type: 'postgres', settings: { host: '127.0.0.1', database: 'test', user: 'postgres' }, secrets: { password: 'HW_ONCE_TEST_PG_PASSWORD' } },
    ],
    mappings: [
      { name: 'to-erp', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields },
      { name: 'to-ledger', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields },
    ],
    jobs: [
      { name: 'accounts-to-erp', schedule: '0 */5 * * * *', source: 'crm', target: 'erp', mapping: 'to-erp', priority: 'high', watermark: { type: 'datetime', field: 'modified_at' } },
      { name: 'accounts-to-ledger', schedule: '0 */5 * * * *', source: 'crm', target: 'ledger', mapping: 'to-ledger', watermark: { type: 'datetime', field: 'modified_at' } },
    ],
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(configDir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  // The same job to a target that can take its messages.
  const erp = new Database(path.join(dir, 'erp-ok.db'));
  erp.exec('CREATE TABLE customers (crm_id TEXT PRIMARY KEY, name TEXT NOT NULL)');
  erp.close();
  const okDir = path.join(dir, 'config-ok');
  fs.mkdirSync(okDir);
  const ok = {
    connections: [config.connections[0], { name: 'erp', type: 'sqlite', settings: { file: path.join(dir, 'erp-ok.db') } }],
    mappings: [config.mappings[0]],
    jobs: [config.jobs[0]],
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(okDir, `${kind}.yaml`), stringify({ [kind]: ok[kind] }));
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

describe('start --once with targets that cannot take their messages', () => {
  // Inline, the runtime's outage mode says why; on the processing worker (the default), the worker's reports of it.
  it.each(['inline', 'worker'])('gives up after --stall-timeout without progress, says what waits for which target and why, exits 1, dead-letters nothing (processing %s)', async (mode) => {
    process.env.HIGHWATER_DATA_DIR = path.join(dir, `data-${mode}`);
    process.env.HIGHWATER_LOCAL_PROCESSING = mode;
    const began = Date.now();
    const code = await runCli(['start', '--once', '--port', '0', '--stall-timeout', '3', '--config', path.join(dir, 'config')]);
    const seconds = (Date.now() - began) / 1000;
    const text = out.join('\n');
    expect(code).toBe(1);
    // The jobs run, then 3 s without progress end the wait (start-up and the two job runs take a few seconds more).
    expect(seconds).toBeLessThan(30);
    expect(text).toContain('Highwater run summary');
    expect(text).toMatch(/ {2}dead-lettered +0 /);
    const waiting = out.flatMap((chunk) => chunk.split('\n')).filter((line) => /^Waiting|^ {2}\d+ for target/.test(line));
    expect(waiting).toEqual([
      'Waiting in the work queues: 24 message(s)',
      expect.stringMatching(
        /^ {2}12 for target "erp" \(job accounts-to-erp\): target in outage since \S+Z: sqlite connection "erp": apply 12 to "customers": the database file cannot be opened \(check settings\.file\) \(TypeError\): Cannot open database because the directory does not exist$/,
      ),
      expect.stringMatching(
        /^ {2}12 for target "ledger" \(job accounts-to-ledger\): target in outage since \S+Z: connection "ledger": secret "password" names app setting HW_ONCE_TEST_PG_PASSWORD, which is not set$/,
      ),
    ]);
    expect(err).toContain('error: no message reached its end for 3 s (--stall-timeout): 24 message(s) wait in the work queues for the next start');
  }, 60_000);

  it('ends 0 without a waiting list when every message reached its end', async () => {
    process.env.HIGHWATER_DATA_DIR = path.join(dir, 'data-ok');
    process.env.HIGHWATER_LOCAL_PROCESSING = 'inline';
    const code = await runCli(['start', '--once', '--port', '0', '--stall-timeout', '3', '--config', path.join(dir, 'config-ok')]);
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/^ {2}applied to the target +12$/m);
    expect(text).not.toContain('Waiting in the work queues');
    expect(err.filter((line) => line.startsWith('error:'))).toEqual([]);
    const erp = new Database(path.join(dir, 'erp-ok.db'), { readonly: true });
    try {
      expect(erp.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: 12 });
    } finally {
      erp.close();
    }
  }, 60_000);
});
