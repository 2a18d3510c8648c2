import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * `highwater run JOB --dry-run --limit 2000 --json | wc -c` printed 65536 (the
 * pipe's buffer) and exited 0. The real CLI in a child process, its stdout a real pipe to a reader
 * that sleeps before reading: everything written must arrive.
 */
const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
let azurite: TestAzurite;
let dir: string;

beforeAll(async () => {
  azurite = await startTestAzurite();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-cli-pipe-'));
  const crm = new Database(path.join(dir, 'crm.db'));
  crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified_at TEXT NOT NULL)');
  const insert = crm.prepare('INSERT INTO accounts VALUES (?, ?, ?)');
  crm.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(`A-${i}`, `Account number ${i} with a long enough name`, `2026-01-01T10:00:${String(i % 60).padStart(2, '0')}.000Z`);
  })();
  crm.close();
  const config = {
    connections: [{ name: 'crm', type: 'sqlite', settings: { file: path.join(dir, 'crm.db') } }],
    mappings: [{ name: 'accounts', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields: [{ target: 'crm_id', source: 'id' }, { target: 'name', source: 'name' }] }],
    jobs: [{ name: 'pipe-accounts', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'accounts', watermark: { type: 'datetime', field: 'modified_at' } }],
  };
  fs.mkdirSync(path.join(dir, 'config'));
  for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, 'config', `${kind}.yaml`), stringify({ [kind]: config[kind] }));
});

afterAll(async () => {
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('writes all of a large --json answer into a pipe whose reader is slow, then exits 0', async () => {
  const env = { ...process.env, AzureWebJobsStorage: azurite.connectionString, HIGHWATER_DATA_DIR: path.join(dir, 'data') };
  const cli = `${JSON.stringify(process.execPath)} -r ./src/platform/swc-register.js src/cli/main.ts run pipe-accounts --config ${JSON.stringify(path.join(dir, 'config'))} --dry-run --limit 2000 --json`;
  // The answer holds timings (a run's duration), so two runs may differ by a byte: what arrived through
  // the pipe is checked whole on its own (the bug cut it at the pipe's 65,536 bytes: no valid JSON).
  const piped = path.join(dir, 'piped.json');
  await exec('sh', ['-c', `{ ${cli}; echo "exit $?" >&2; } 2>${JSON.stringify(path.join(dir, 'err.txt'))} | (sleep 2; cat > ${JSON.stringify(piped)})`], { cwd: ROOT, env });
  expect(fs.statSync(piped).size).toBeGreaterThan(4 * 65536);
  const answer = JSON.parse(fs.readFileSync(piped, 'utf8')) as { preview: unknown[] };
  expect(answer.preview).toHaveLength(2000);
  expect(fs.readFileSync(path.join(dir, 'err.txt'), 'utf8')).toMatch(/exit 0\n$/);
}, 60_000);
