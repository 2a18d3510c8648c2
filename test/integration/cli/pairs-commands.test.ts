import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { writeConfigDir } from '../config/config-fixture';

/** A pair between the fixture's two connections (number watermarks, so `conflicts` is set). */
const PAIRS_YAML = `pairs:
  - name: people
    a: { connection: crm, entity: contacts, key: [id], watermark: { type: number, field: version } }
    b: { connection: erp, entity: persons, key: [crm_id], watermark: { type: datetime, field: changed_at } }
    fields:
      - { a: id, b: crm_id }
      - { a: name, b: full_name }
    conflicts: a
`;

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
});

afterEach(() => jest.restoreAllMocks());

function folder(pairs = PAIRS_YAML): string {
  const dir = writeConfigDir();
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'pairs.yaml'), pairs);
  return dir;
}

describe('highwater config with pairs', () => {
  it('validate counts the pair, not its jobs and mappings; an issue names the pair', async () => {
    const dir = folder();
    expect(await runCli(['config', 'validate', '--config', dir])).toBe(0);
    expect(out).toEqual([`${dir}: valid (2 connections, 1 mapping, 1 job, 1 pair)`]);
    out.length = 0;
    expect(await runCli(['config', 'validate', '--config', dir, '--json'])).toBe(0);
    expect(JSON.parse(out.join('\n')).counts).toEqual({ connections: 2, mappings: 1, jobs: 1, pairs: 1 });
    expect(await runCli(['config', 'validate', '--config', folder(PAIRS_YAML.replace('conflicts: a', 'conflicts: newest'))])).toBe(1);
    expect(err.filter((line) => line.startsWith('error:'))).toEqual([`error: pairs.yaml: pairs[0].conflicts (pair "people"): "newest" needs both watermarks of type datetime (side a's is "number"): set conflicts to a, b or manual`]);
  });

  it('push stores the pair; its jobs are known to the watermark commands; pull writes pairs.yaml', async () => {
    const dir = folder();
    expect(await runCli(['config', 'push', '--config', dir])).toBe(0);
    expect(out.slice(1)).toEqual([
      'connections: 2 added, 0 changed, 0 removed',
      '  + crm',
      '  + erp',
      'mappings: 1 added, 0 changed, 0 removed',
      '  + customers',
      'jobs: 1 added, 0 changed, 0 removed',
      '  + crm-to-erp-customers',
      'pairs: 1 added, 0 changed, 0 removed',
      '  + people',
    ]);
    out.length = 0;
    expect(await runCli(['config', 'diff', '--config', dir])).toBe(0);
    expect(out).toEqual(['no changes']);
    out.length = 0;
    expect(await runCli(['watermark', 'reset', 'people.a-to-b', '--to', '42', '--keep-applied-hashes'])).toBe(0);
    expect(out).toEqual(['people.a-to-b: watermark set to 42; applied hashes kept (unchanged records are skipped)']);
    const pulled = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-pairs-cli-'));
    dirs.push(pulled);
    out.length = 0;
    expect(await runCli(['config', 'pull', '--config', pulled])).toBe(0);
    expect(out[0]).toMatch(/pairs\.yaml \(2 connections, 1 mapping, 1 job, 1 pair\)$/);
    expect(fs.readdirSync(pulled).sort()).toEqual(['connections.yaml', 'jobs.yaml', 'mappings.yaml', 'pairs.yaml']);
  });
});
