import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { loadConfigFolder } from '../../../src/config/load-config';
import type { HighwaterConfig } from '../../../src/model/config';
import { APPLIED_HASHES_TABLE } from '../../../src/process/applied-hash-store';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { fixtureConfig, writeConfigDir } from '../config/config-fixture';

let azurite: TestAzurite;
const savedStorage = process.env.AzureWebJobsStorage;
const dirs: string[] = [];
let out: string[];
let err: string[];

beforeAll(async () => {
  azurite = await startTestAzurite();
  process.env.AzureWebJobsStorage = azurite.connectionString;
});

afterAll(async () => {
  if (savedStorage === undefined) delete process.env.AzureWebJobsStorage;
  else process.env.AzureWebJobsStorage = savedStorage;
  await azurite?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  out = [];
  err = [];
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true));
});

afterEach(() => jest.restoreAllMocks());

function configDir(mutate: (c: ReturnType<typeof fixtureConfig>) => void = () => {}): string {
  const config = fixtureConfig();
  mutate(config);
  const dir = writeConfigDir(config);
  dirs.push(dir);
  return dir;
}

describe('highwater config', () => {
  it('validate: a valid folder exits 0 without storage', async () => {
    const dir = configDir();
    const saved = process.env.AzureWebJobsStorage;
    process.env.AzureWebJobsStorage = 'not a connection string';
    try {
      expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
    } finally {
      process.env.AzureWebJobsStorage = saved;
    }
    expect(out).toEqual([`${dir}: valid (2 connections, 1 mapping, 1 job)`]);
  });

  it('validate: a broken folder exits 1 naming the file and property path on stderr', async () => {
    const dir = configDir((c) => (c.jobs[0].pageSize = -1));
    expect(await runCli(['config', 'validate', '--config', dir])).toBe(1);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^error: jobs\.yaml: jobs\[0\]\.pageSize \(job "crm-to-erp-customers"\): /);
  });

  it('diff, push, push again, diff: idempotent; a broken folder pushes nothing', async () => {
    const dir = configDir();
    expect(await runCli(['config', 'diff', '--config', dir])).toBe(0);
    expect(out).toEqual([
      'connections: 2 added, 0 changed, 0 removed',
      '  + crm',
      '  + erp',
      'mappings: 1 added, 0 changed, 0 removed',
      '  + customers',
      'jobs: 1 added, 0 changed, 0 removed',
      '  + crm-to-erp-customers',
    ]);
    out.length = 0;
    expect(await runCli(['config', 'push', '--config', dir])).toBe(0);
    expect(out[0]).toBe(`pushed ${dir} to Table Storage at http://127.0.0.1:${azurite.port}/devstoreaccount1:`);
    out.length = 0;
    expect(await runCli(['config', 'push', '--config', dir])).toBe(0);
    expect(out).toEqual([`nothing to push: Table Storage at http://127.0.0.1:${azurite.port}/devstoreaccount1 already matches ${dir}`]);
    out.length = 0;
    expect(await runCli(['config', 'diff', '--config', dir])).toBe(0);
    expect(out).toEqual(['no changes']);

    const broken = configDir((c) => {
      c.jobs[0].schedule = '0 0 * * * *';
      c.connections[0].settings = { password: 'hunter2' };
    });
    out.length = 0;
    expect(await runCli(['config', 'push', '--config', broken])).toBe(1);
    expect(err.join('\n')).toMatch(/^error: connections\.yaml: connections\[0\]\.settings\.password \(connection "crm"\): /);
    expect(err.join('\n')).not.toContain('hunter2');
    out.length = 0;
    expect(await runCli(['config', 'diff', '--config', dir, '--json'])).toBe(0);
    const empty = { added: [], changed: [], removed: [] };
    expect(JSON.parse(out.join('\n'))).toEqual({ connections: empty, mappings: empty, jobs: empty });
  });

  it('diff shows what changed; pull writes the stored configuration into a folder', async () => {
    const dir = configDir();
    expect(await runCli(['config', 'push', '--config', dir])).toBe(0);
    // The same database file (a relative path in another folder would name another file).
    const changed = configDir((c) => {
      c.jobs[0].enabled = false;
      c.connections[0].settings = { file: path.join(dir, 'crm.db') };
    });
    out.length = 0;
    expect(await runCli(['config', 'diff', '--config', changed])).toBe(0);
    expect(out).toEqual(['jobs: 0 added, 1 changed, 0 removed', '  ~ crm-to-erp-customers', '      enabled: true → false']);

    const target = path.join(os.tmpdir(), `hw-cli-pull-${process.pid}-${Date.now()}`);
    dirs.push(target);
    out.length = 0;
    expect(await runCli(['config', 'pull', '--config', target])).toBe(0);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^wrote .*connections\.yaml, .*mappings\.yaml, .*jobs\.yaml \(2 connections, 1 mapping, 1 job\)$/);
    // Pulled into another folder, the relative `crm.db` still names the pushed folder's file.
    const pushed = await loadConfigFolder(dir);
    pushed.connections[0].settings.file = path.join(dir, 'crm.db');
    expect(await loadConfigFolder(target)).toEqual(pushed);
  });

  it('push stores file paths resolved; pull writes them relative to the folder when the file is inside it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-cli-rebase-'));
    dirs.push(root);
    const authored = path.join(root, 'authored');
    fs.mkdirSync(path.join(root, 'db'));
    fs.writeFileSync(path.join(root, 'db', 'crm.db'), '');
    const config = fixtureConfig();
    config.connections[0].settings = { file: '../db/crm.db' };
    fs.renameSync(writeConfigDir(config), authored);
    expect(await runCli(['config', 'push', '--config', authored])).toBe(0);
    expect(await runCli(['config', 'pull', '--config', root])).toBe(0);
    const pulled = await loadConfigFolder(root);
    expect(pulled.connections.find((c) => c.name === 'crm')?.settings.file).toBe('./db/crm.db');
    out.length = 0;
    // Both folders name the same file: nothing to push.
    expect(await runCli(['config', 'diff', '--config', root])).toBe(0);
    expect(out).toEqual(['no changes']);
  });

  it('validate warns about a file a connection names that does not exist, and says so in --json', async () => {
    const dir = configDir();
    expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
    expect(out).toEqual([`${dir}: valid (2 connections, 1 mapping, 1 job)`]);
    const warning = `no file at ${path.join(dir, 'crm.db')}: the connection cannot open it (a sqlite connection opens an existing file only)`;
    expect(err).toEqual([`warning: connections.yaml: connections[0].settings.file (connection "crm"): ${warning}`]);
    out.length = 0;
    expect(await runCli(['config', 'validate', '--config', dir, '--json'])).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual({
      folder: dir,
      valid: true,
      counts: { connections: 2, mappings: 1, jobs: 1 },
      issues: [],
      warnings: [{ file: 'connections.yaml', path: 'connections[0].settings.file', entry: 'crm', message: warning }],
    });
    fs.writeFileSync(path.join(dir, 'crm.db'), '');
    err.length = 0;
    expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
    expect(err).toEqual([]);
  });

  it('validate warns about a job due more often than GetChangesSchedule, which is all the Functions app looks at', async () => {
    const dir = configDir((c) => (c.jobs[0].schedule = '*/2 * * * * *'));
    fs.writeFileSync(path.join(dir, 'crm.db'), '');
    fs.writeFileSync(path.join(dir, 'erp.db'), '');
    const saved = process.env.GetChangesSchedule;
    try {
      expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
      expect(err).toEqual([
        'warning: jobs.yaml: jobs[0].schedule (job "crm-to-erp-customers"): "*/2 * * * * *" is due every 2 s, more often than GetChangesSchedule "*/10 * * * * *" (every 10 s): ' +
          'the Functions app looks for due jobs only on GetChangesSchedule, so in Azure it runs at most once per look; the local host runs it on its own schedule',
      ]);
      err.length = 0;
      process.env.GetChangesSchedule = '* * * * * *';
      expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
      expect(err).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.GetChangesSchedule;
      else process.env.GetChangesSchedule = saved;
    }
  });

  it('validate --json of a broken folder prints the issues as JSON on stdout and exits 1', async () => {
    const dir = configDir((c) => (c.jobs[0].pagesize = 10));
    expect(await runCli(['config', 'validate', '--config', dir, '--json'])).toBe(1);
    expect(err).toEqual([]);
    expect(JSON.parse(out.join('\n'))).toEqual({
      folder: dir,
      valid: false,
      issues: [{ file: 'jobs.yaml', path: 'jobs[0].pagesize', entry: 'crm-to-erp-customers', message: 'unknown property; did you mean pageSize?' }],
      warnings: [],
    });
  });

  it('round-trips the demo configuration (examples/demo) through push and pull', async () => {
    const target = path.join(os.tmpdir(), `hw-cli-demo-${process.pid}-${Date.now()}`);
    dirs.push(target);
    expect(await runCli(['config', 'push', '--config', 'examples/demo'])).toBe(0);
    expect(await runCli(['config', 'pull', '--config', target])).toBe(0);
    // Tables hold items by name, so pull writes them in name order; order carries no meaning.
    const byName = (config: HighwaterConfig) => ({
      connections: [...config.connections].sort((a, b) => a.name.localeCompare(b.name)),
      mappings: [...config.mappings].sort((a, b) => a.name.localeCompare(b.name)),
      jobs: [...config.jobs].sort((a, b) => a.name.localeCompare(b.name)),
    });
    // The same configuration, its SQLite files named so that they are the demo's from the new folder.
    const demo = byName(await loadConfigFolder('examples/demo'));
    for (const c of demo.connections) c.settings.file = path.resolve('examples/demo', String(c.settings.file));
    expect(byName(await loadConfigFolder(target))).toEqual(demo);
    out.length = 0;
    expect(await runCli(['config', 'diff', '--config', target])).toBe(0);
    expect(out).toEqual(['no changes']);
  });

  it('rejects unknown options with exit code 2', async () => {
    expect(await runCli(['config', 'push', '--nope'])).toBe(2);
  });
});

describe('highwater watermark', () => {
  const JOB = 'crm-to-erp-customers';
  let pushed = false;
  beforeEach(async () => {
    if (!pushed) expect(await runCli(['config', 'push', '--config', configDir()])).toBe(0);
    pushed = true;
    out.length = 0;
  });

  it('get, reset --to, list, reset (clear), list --json', async () => {
    expect(await runCli(['watermark', 'get', JOB])).toBe(0);
    expect(out).toEqual([`${JOB}: no watermark stored (the job is due and reads everything)`]);
    out.length = 0;
    expect(await runCli(['watermark', 'reset', JOB, '--to', '2026-01-01T00:00:00Z', '--keep-applied-hashes'])).toBe(0);
    expect(await runCli(['watermark', 'get', JOB])).toBe(0);
    // Stored in the canonical form of the job's type (what the next run reads back).
    expect(out).toEqual([
      `${JOB}: watermark set to 2026-01-01T00:00:00.0000000Z; applied hashes kept (unchanged records are skipped)`,
      `${JOB}: watermark 2026-01-01T00:00:00.0000000Z, last cron run (never: due)`,
    ]);
    out.length = 0;
    expect(await runCli(['watermark', 'list'])).toBe(0);
    expect(out).toEqual(['job                   watermark                     last cron run', `${JOB}  2026-01-01T00:00:00.0000000Z  -`]);
    out.length = 0;
    expect(await runCli(['watermark', 'reset', JOB])).toBe(0);
    expect(await runCli(['watermark', 'list', '--json'])).toBe(0);
    expect(out[0]).toBe(`${JOB}: watermark cleared; the next run reads everything`);
    expect(JSON.parse(out.slice(1).join('\n'))).toEqual([{ jobName: JOB, watermark: null, lastCronRun: null, persisted: true }]);
  });

  it('reset clears the job\'s applied hashes (a resync resends everything); --keep-applied-hashes keeps them', async () => {
    const storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
    try {
      const hashes = await storage.table(APPLIED_HASHES_TABLE);
      const row = (job: string, key: string) => ({ kind: 'upsert' as const, row: { partitionKey: job, rowKey: key, properties: { Hash: 'h' } } });
      await hashes.submitBatch([row(JOB, 'a'), row(JOB, 'b'), row('other-job', 'a')]);
      expect(await runCli(['watermark', 'reset', JOB, '--keep-applied-hashes'])).toBe(0);
      expect(await hashes.queryPartition(JOB)).toHaveLength(2);
      expect(await runCli(['watermark', 'reset', JOB])).toBe(0);
      expect(out).toEqual([
        `${JOB}: watermark cleared; the next run reads everything; applied hashes kept (unchanged records are skipped)`,
        `${JOB}: watermark cleared; the next run reads everything; 2 applied hashes cleared (every record read is sent)`,
      ]);
      expect(await hashes.queryPartition(JOB)).toEqual([]);
      expect(await hashes.queryPartition('other-job')).toHaveLength(1);
    } finally {
      await storage.close();
    }
  });

  it('refuses a value that is not of the job\'s watermark type, and a job that is not configured', async () => {
    expect(await runCli(['watermark', 'reset', JOB, '--to', 'yesterday'])).toBe(2);
    expect(await runCli(['watermark', 'reset', 'nope-job'])).toBe(2);
    expect(await runCli(['watermark', 'get', 'nope'])).toBe(2);
    expect(err).toEqual([
      `error: --to: "yesterday" is not a valid datetime watermark value: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z (job ${JOB} has watermark type datetime)`,
      `error: unknown job "nope-job" in the configuration tables; known jobs: ${JOB}`,
      `error: unknown job "nope" in the configuration tables; known jobs: ${JOB}`,
    ]);
    expect(out).toEqual([]);
    const list: string[] = [];
    out = list;
    expect(await runCli(['watermark', 'list', '--json'])).toBe(0);
    expect(JSON.parse(list.join('\n')).map((r: { jobName: string }) => r.jobName)).toEqual([JOB]);
  });

  it('checks the job against a config folder with --config', async () => {
    const dir = configDir((c) => (c.jobs[0].name = 'folder-job'));
    expect(await runCli(['watermark', 'reset', 'folder-job', '--config', dir, '--to', '2026-02-01'])).toBe(0);
    expect(out).toEqual(['folder-job: watermark set to 2026-02-01T00:00:00.0000000Z']);
    expect(await runCli(['watermark', 'get', JOB, '--config', dir])).toBe(2);
    expect(err).toEqual([`error: unknown job "${JOB}" in ${dir}; known jobs: folder-job`]);
  });

  it('bad arguments exit 2', async () => {
    expect(await runCli(['watermark', 'get', 'a/b'])).toBe(2);
    expect(err).toContain(`error: job name "a/b" contains '/'`);
    expect(await runCli(['watermark', 'reset', 'j', '--to', ' '])).toBe(2);
    expect(await runCli(['watermark', 'get'])).toBe(2);
    expect(await runCli(['watermark', 'frobnicate'])).toBe(2);
  });
});
