import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { loadConfigFolder } from '../../../src/config/load-config';
import { validateConfig } from '../../../src/config/validate-config';
import { errorKind } from '../../../src/platform/errors';
import { validRawConfig } from './valid-config';

const FIXTURES = path.join(__dirname, 'fixtures');

async function loadError(dir: string): Promise<ConfigValidationError> {
  const error: unknown = await loadConfigFolder(dir).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof ConfigValidationError)) throw new Error(`expected a ConfigValidationError, got ${String(error)}`);
  return error;
}

describe('loadConfigFolder', () => {
  let dir: string;
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  };
  const VALID_YAML = {
    'connections.yaml': 'connections:\n  - { name: crm, type: sqlite }\n',
    'mappings.yml': 'mappings: []\n',
    'jobs.json': '{ "jobs": [] }\n',
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'highwater-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads JSON files with $schema pointers to the same config as validateConfig', async () => {
    expect(await loadConfigFolder(path.join(FIXTURES, 'all-json'))).toEqual(validateConfig(validRawConfig()));
  });

  it('loads .yaml, .yml and .json side by side', async () => {
    write(VALID_YAML);
    expect(await loadConfigFolder(dir)).toEqual({
      connections: [{ name: 'crm', type: 'sqlite', settings: {}, secrets: {}, maxConcurrency: 8 }],
      mappings: [],
      jobs: [],
      pairs: [],
    });
  });

  it('names the file and the property path of each problem in a broken folder', async () => {
    const error = await loadError(path.join(FIXTURES, 'broken'));
    expect(errorKind(error)).toBe('config');
    expect(error.message).toBe(
      'jobs.yaml: jobs[0].priorty: unknown property; did you mean priority?\n' +
        'jobs.yaml: jobs[2].schedule: invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59',
    );
    expect(error.issues[1]).toEqual({
      file: 'jobs.yaml',
      path: 'jobs[2].schedule',
      message: 'invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59',
      entry: 'c',
    });
  });

  it('reports a missing folder', async () => {
    const missing = path.join(dir, 'nope');
    expect((await loadError(missing)).message).toBe(`${missing}: config folder not found`);
  });

  it('reports missing and duplicate files, and still checks the rest', async () => {
    write({ 'jobs.yaml': 'jobs: []\n', 'jobs.json': '{"jobs": []}', 'connections.yml': 'connections:\n  - { name: crm }\n' });
    expect((await loadError(dir)).message.split('\n')).toEqual([
      `${dir}: no mappings file (expected one of mappings.json, mappings.yaml, mappings.yml)`,
      `${dir}: more than one jobs file (jobs.json, jobs.yaml); keep exactly one`,
      'connections.yml: connections[0].type: required',
    ]);
  });

  it('reports YAML syntax errors with file and line, without quoting the source', async () => {
    write({ ...VALID_YAML, 'connections.yaml': 'connections:\n  - name: crm\n    password: "s3cr3t: x\n  - name: [erp\n' });
    const error = await loadError(dir);
    expect(error.message).toBe('connections.yaml: YAML syntax error at line 5, column 1: Missing closing "quote');
    expect(error.message).not.toContain('s3cr3t');
    write({ 'connections.yaml': 'connections:\n  - name: crm\n    password: x: y\n' });
    expect((await loadError(dir)).message).toBe(
      'connections.yaml: YAML syntax error at line 3, column 15: Nested mappings are not allowed in compact mappings',
    );
  });

  it('reports JSON syntax errors with file and line, without quoting the source', async () => {
    write({ ...VALID_YAML, 'jobs.json': '{\n  "jobs": [\n    { "name": "s3cr3t" }\n    { "name": "b" }\n  ]\n}\n' });
    expect((await loadError(dir)).message).toBe(
      "jobs.json: JSON syntax error at line 4, column 5: Expected ',' or ']' after array element",
    );
    write({ 'jobs.json': 's3cr3t' });
    const error = await loadError(dir);
    expect(error.message).toBe("jobs.json: JSON syntax error: Unexpected token 's'");
  });

  it('checks the top level of each file', async () => {
    write({ ...VALID_YAML, 'mappings.yml': '', 'jobs.json': '{ "job": [], "$schema": 3 }' });
    expect((await loadError(dir)).message.split('\n')).toEqual([
      'mappings.yml: expected an object with a top-level "mappings" list, got null',
      'jobs.json: job: unknown property; did you mean jobs?',
      'jobs.json: $schema: expected a string',
      'jobs.json: jobs: required',
    ]);
  });

  it('does not report references into a file that could not be read as unknown', async () => {
    write({ ...VALID_YAML, 'mappings.yml': 'mappings: {}\n', 'jobs.json': JSON.stringify({ jobs: validRawConfig().jobs }) });
    expect((await loadError(dir)).message.split('\n')).toEqual([
      'mappings.yml: mappings: expected a list, got object',
      'jobs.json: jobs[0].target: unknown connection "erp" (known: crm)',
      'jobs.json: jobs[1].source: unknown connection "erp" (known: crm)',
    ]);
  });

  it('passes connection type validators through', async () => {
    write(VALID_YAML);
    const error: unknown = await loadConfigFolder(dir, { connectionTypes: { postgres: () => [] } }).catch((err: unknown) => err);
    expect((error as Error).message).toBe('connections.yaml: connections[0].type: unknown connection type "sqlite" (known: postgres)');
  });
});
