import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { createBus } from '../../../src/bus/create-bus';
import { APPLY_HINT } from '../../../src/cli/commands/run';
import { runCli } from '../../../src/cli/main';
import { readSettings } from '../../../src/platform/settings';
import { ConfigStore } from '../../../src/config/config-store';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/** `highwater run` and `highwater runs` in-process, on a real Azurite, local bus and SQLite source. */
let azurite: TestAzurite;
let dir: string;
let configDir: string;
let crm: Database.Database;
const saved = { storage: process.env.AzureWebJobsStorage, dataDir: process.env.HIGHWATER_DATA_DIR };
let out: string[];
let err: string[];

const TRACKER_1 = '2026-01-01T10:00:00.0000000Z';
const TRACKER_2 = '2026-01-01T10:01:00.0000000Z';

beforeAll(async () => {
  azurite = await startTestAzurite();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-cli-run-'));
  configDir = path.join(dir, 'config');
  fs.mkdirSync(configDir);
  process.env.AzureWebJobsStorage = azurite.connectionString;
  process.env.HIGHWATER_DATA_DIR = path.join(dir, 'data');
  crm = new Database(path.join(dir, 'crm.db'));
  crm.exec(`CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, city TEXT, modified_at TEXT NOT NULL)`);
  crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?)').run('A-1', 'Acme', 'Berlin', '2026-01-01T10:00:00.000Z');
  crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?)').run('A-2', 'Bolt', 'Bonn', '2026-01-01T10:01:00.000Z');
  const config = {
    // Absolute file: in tables mode relative files would resolve against the working directory.
    connections: [{ name: 'crm', type: 'sqlite', settings: { file: path.join(dir, 'crm.db') } }],
    mappings: [
      {
        name: 'accounts',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
          { target: 'city', source: 'city' },
        ],
      },
      { name: 'broken', source: { entity: 'missing', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields: [{ target: 'crm_id', source: 'id' }] },
    ],
    jobs: [
      { name: 'cli-accounts', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'accounts', priority: 'high', watermark: { type: 'datetime', field: 'modified_at' } },
      { name: 'cli-broken', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'broken', watermark: { type: 'datetime', field: 'modified_at' } },
    ],
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(configDir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
});

afterAll(async () => {
  for (const [name, value] of [['AzureWebJobsStorage', saved.storage], ['HIGHWATER_DATA_DIR', saved.dataDir]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  crm?.close();
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  out = [];
  err = [];
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  jest.spyOn(console, 'warn').mockImplementation((line: unknown) => void err.push(String(line)));
});

afterEach(() => jest.restoreAllMocks());

async function activeIn(queue: string): Promise<number> {
  const bus = await createBus(readSettings());
  try {
    return (await bus.counts(queue)).active;
  } finally {
    await bus.close();
  }
}

// The tests build on each other: dry run, run, idle run, failed run, runs, tables mode.
describe('highwater run / runs', () => {
  it('run --dry-run --limit 1 prints the message it would send; nothing sent, nothing stored', async () => {
    expect(await runCli(['run', 'cli-accounts', '--config', configDir, '--dry-run', '--limit', '1'])).toBe(0);
    expect(err).toEqual([]);
    expect(out).toEqual([
      'dry run of job cli-accounts: nothing is sent, the watermark stays (none)',
      `#1 NewUpdate A-1 → {"crm_id":"A-1"}  change tracker ${TRACKER_1}`,
      '    crm_id  "A-1"',
      '    name    "ACME"',
      '    city    "Berlin"',
      '1 message would be sent (--limit 1 reached: more may follow); timestamp-only changes: 0',
    ]);
    expect(await activeIn('sbqhigh')).toBe(0);
    out.length = 0;
    expect(await runCli(['watermark', 'get', 'cli-accounts', '--config', configDir])).toBe(0);
    expect(await runCli(['runs'])).toBe(0);
    expect(out).toEqual(['cli-accounts: no watermark stored (the job is due and reads everything)', 'no runs recorded']);
  });

  it('run --dry-run --json prints the messages as JSON', async () => {
    expect(await runCli(['run', 'cli-accounts', '--config', configDir, '--dry-run', '--json'])).toBe(0);
    const run = JSON.parse(out.join('\n')) as { trigger: string; sent: number; preview: Array<{ sourceKey: string; fields: unknown }> };
    expect(run).toMatchObject({ job: 'cli-accounts', jobName: 'cli-accounts', trigger: 'dryRun', outcome: 'Succeeded', detected: 2, sent: 0, watermarkAfter: null });
    expect(run.preview.map((m) => [m.sourceKey, m.fields])).toEqual([
      ['A-1', { crm_id: 'A-1', name: 'ACME', city: 'Berlin' }],
      ['A-2', { crm_id: 'A-2', name: 'BOLT', city: 'Bonn' }],
    ]);
  });

  it('run sends, prints the summary, moves the watermark and records the run; an idle run keeps it', async () => {
    expect(await runCli(['run', 'cli-accounts', '--config', configDir])).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toMatch(/^job cli-accounts: Succeeded in \d+ ms|^job cli-accounts: Succeeded in \d+\.\d s/);
    expect(out.slice(1)).toEqual(['  detected   2 (timestamp-only 0)', '  sent       2 (sbqhigh 2)', `  watermark  (none) → ${TRACKER_2}`, APPLY_HINT]);
    expect(await activeIn('sbqhigh')).toBe(2);

    out.length = 0;
    expect(await runCli(['run', 'cli-accounts', '--config', configDir, '--json'])).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ trigger: 'manual', detected: 0, sent: 0, sentByQueue: {}, watermarkBefore: TRACKER_2, watermarkAfter: TRACKER_2, error: null });
  });

  it('a failed run exits 1 with its error on stderr once, and is recorded', async () => {
    expect(await runCli(['run', 'cli-broken', '--config', configDir])).toBe(1);
    expect(out[0]).toMatch(/^job cli-broken: Failed in /);
    expect(out.slice(1)).toEqual(['  detected   0 (timestamp-only 0)', '  sent       0', '  watermark  (none) (unchanged)']);
    expect(err).toEqual(['error: job cli-broken failed: sqlite connection "crm": read the maximum of "modified_at" in "missing": the table does not exist (SQLITE_ERROR): no such table: missing']);
  });

  it('runs lists the latest runs newest first, per job, limited, and as JSON', async () => {
    expect(await runCli(['runs'])).toBe(0);
    expect(out[0]).toMatch(/^job {11}trigger {2}started {19}duration {2}detected {2}sent {2}outcome +error$/);
    expect(out.slice(1).map((line) => line.split(/\s{2,}/).filter((cell) => !/^\d{4}-|\d+ ms$|\d s$/.test(cell)))).toEqual([
      // A failed run says when the timer tries the job again (failure backoff).
      ['cli-broken', 'manual', '0', '0', expect.stringMatching(/^Failed \(retrying at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\)$/), 'sqlite connection "crm": read the maximum of "modified_at" in "missing": the table does not exist (SQLITE_ERROR): no such table: missing'],
      ['cli-accounts', 'manual', '0', '0', 'Succeeded'],
      ['cli-accounts', 'manual', '2', '2', 'Succeeded'],
    ]);
    out.length = 0;
    expect(await runCli(['runs', 'cli-accounts', '--limit', '1', '--json'])).toBe(0);
    const runs = JSON.parse(out.join('\n')) as Array<Record<string, unknown>>;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ job: 'cli-accounts', jobName: 'cli-accounts', detected: 0, sent: 0, outcome: 'Succeeded', watermarkBefore: TRACKER_2 });
    out.length = 0;
    expect(await runCli(['runs', 'no-such-job'])).toBe(0);
    expect(out).toEqual(['no runs of job "no-such-job" recorded']);
  });

  it('run without --config reads the configuration tables', async () => {
    expect(await runCli(['config', 'push', '--config', configDir])).toBe(0);
    crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?)').run('A-3', 'Core', 'Kiel', '2026-01-01T10:02:00.000Z');
    out.length = 0;
    expect(await runCli(['run', 'cli-accounts'])).toBe(0);
    expect(out.slice(1)).toEqual(['  detected   1 (timestamp-only 0)', '  sent       1 (sbqhigh 1)', `  watermark  ${TRACKER_2} → 2026-01-01T10:02:00.0000000Z`, APPLY_HINT]);
  });

  it.each([
    [['run', 'nope', '--config'], 'unknown job "nope" in CONFIG_DIR; known jobs: cli-accounts, cli-broken'],
    [['run', 'cli-accounts', '--limit', '5', '--config'], '--limit applies to --dry-run only'],
    [['run', 'cli-accounts', '--dry-run', '--limit', '0', '--config'], '--limit must be a positive integer, got "0"'],
  ])('bad input exits 2: %j', async (args, message) => {
    expect(await runCli([...args, configDir])).toBe(2);
    expect(err).toEqual([`error: ${message.replace('CONFIG_DIR', configDir)}`]);
    expect(out).toEqual([]);
  });

  it('an unknown job with empty configuration tables says how to fill them', async () => {
    const storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: dir });
    try {
      await new ConfigStore(storage).push({ connections: [], mappings: [], jobs: [], pairs: [] });
    } finally {
      await storage.close();
    }
    expect(await runCli(['run', 'crm-accounts-to-erp'])).toBe(2);
    expect(err).toEqual(['error: unknown job "crm-accounts-to-erp": there are no jobs in the configuration tables; push a config folder with `highwater config push --config DIR`, or pass --config DIR']);
  });

  it('runs with a bad --limit exits 2', async () => {
    expect(await runCli(['runs', '--limit', 'x'])).toBe(2);
    expect(err).toEqual(['error: --limit must be a positive integer, got "x"']);
  });
});
