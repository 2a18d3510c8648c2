import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { runCli } from '../../../src/cli/main';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { captureCliOutput } from '../bad-input/support/cli-output';

/**
 * `highwater check` on real SQLite files: what `config validate` passes but a run would fail on
 * (a table, a column, the watermark column's type, a target without a unique key on its key, a
 * secret that is not set) is named with file, property path and entry; and the CLI's exit codes.
 */
describe('highwater check on SQLite', () => {
  let dir: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-sqlite-'));
    const crm = new Database(path.join(dir, 'crm.db'));
    crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, city TEXT, updated INTEGER, modified TEXT, counter TEXT, tick INTEGER)');
    crm.prepare("INSERT INTO accounts VALUES ('A-1', 'Acme', 'Berlin', 1767225600, '2026-01-01 00:00:00', '10', 7)").run();
    crm.close();
    const erp = new Database(path.join(dir, 'erp.db'));
    erp.exec('CREATE TABLE customers (number TEXT, name TEXT, city TEXT)');
    erp.exec('CREATE TABLE keyed (number TEXT NOT NULL, name TEXT, city TEXT)');
    erp.exec('CREATE UNIQUE INDEX keyed_number ON keyed (number)');
    erp.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(config: { connections: object[]; mappings: object[]; jobs: object[] }): void {
    for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }

  const connections = [
    { name: 'crm', type: 'sqlite', settings: { file: 'crm.db' } },
    { name: 'erp', type: 'sqlite', settings: { file: 'erp.db' } },
  ];
  const mapping = (name: string, target: string, fields: object[] = []) => ({
    name,
    source: { entity: 'accounts', key: ['id'] },
    target: { entity: target, key: ['number'] },
    fields: [{ target: 'number', source: 'id' }, { target: 'name', source: 'name' }, ...fields],
  });
  const job = (name: string, mappingName: string, watermark: object, more: object = {}) => ({ name, schedule: '0 */5 * * * *', source: 'crm', target: 'erp', mapping: mappingName, watermark, ...more });

  it('names every problem with its file, path and entry', async () => {
    write({
      connections,
      mappings: [
        mapping('bad-fields', 'customers', [{ target: 'town', source: 'town' }]),
        { ...mapping('no-table', 'clients'), source: { entity: 'acounts', key: ['id'] } },
        mapping('good', 'keyed', [{ target: 'city', source: 'city' }]),
      ],
      jobs: [
        job('epoch-as-datetime', 'good', { type: 'datetime', field: 'updated' }),
        job('missing-watermark', 'good', { type: 'datetime', field: 'changed' }, { filter: [{ field: 'region', op: 'eq', value: 'x' }] }),
        job('text-as-number', 'good', { type: 'number', field: 'counter' }),
        job('no-unique-key', 'bad-fields', { type: 'datetime', field: 'modified' }),
        job('no-tables', 'no-table', { type: 'datetime', field: 'modified' }),
        job('fine', 'good', { type: 'number', field: 'tick' }),
      ],
    });
    const report = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    const crm = '(sqlite connection "crm")';
    const erp = '(sqlite connection "erp")';
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      `mappings.yaml: mappings[0].fields[2].source (bad-fields): column "town" not found in table "accounts" ${crm}`,
      `mappings.yaml: mappings[0].fields[2].target (bad-fields): column "town" not found in table "customers" ${erp}`,
      `mappings.yaml: mappings[0].target.key (bad-fields): no primary key or unique index on (number) of table "customers": upserts match records by it and need one to tell an insert from an update ${erp}`,
      `mappings.yaml: mappings[1].source.entity (no-table): table "acounts" not found ${crm}`,
      `mappings.yaml: mappings[1].target.entity (no-table): table "clients" not found ${erp}`,
      `jobs.yaml: jobs[0].watermark.type (epoch-as-datetime): a datetime watermark needs dates: column "updated" of table "accounts" (INTEGER) holds values that are not ISO 8601 dates ${crm}`,
      `jobs.yaml: jobs[1].watermark.field (missing-watermark): column "changed" not found in table "accounts" ${crm}`,
      `jobs.yaml: jobs[1].filter[0].field (missing-watermark): column "region" not found in table "accounts" ${crm}`,
      `jobs.yaml: jobs[2].watermark.type (text-as-number): a number watermark needs a numeric column: column "counter" of table "accounts" is TEXT (text orders "10" before "9") ${crm}`,
    ]);
    expect(report.notices).toEqual([]);
  });

  it('judges an empty INTEGER column by its type, and accepts dates stored as text in it', async () => {
    write({ connections, mappings: [mapping('good', 'keyed')], jobs: [job('j', 'good', { type: 'datetime', field: 'updated' })] });
    const db = new Database(path.join(dir, 'crm.db'));
    db.exec('DELETE FROM accounts');
    db.close();
    const empty = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    expect(empty.issues.map((i) => i.message)).toEqual([
      'a datetime watermark needs dates: column "updated" of table "accounts" is INTEGER and holds no dates (sqlite connection "crm")',
    ]);
    const again = new Database(path.join(dir, 'crm.db'));
    again.prepare("INSERT INTO accounts (id, updated) VALUES ('A-2', '2026-01-02T03:04:05.000Z')").run();
    again.close();
    expect((await checkFolder(dir, { resolveSecret: () => undefined, validateOptions })).issues).toEqual([]);
  });

  it('reports a file that cannot be opened and a secret that is not set', async () => {
    write({
      connections: [
        { name: 'crm', type: 'sqlite', settings: { file: 'missing/crm.db' } },
        { name: 'erp', type: 'postgres', settings: { host: '127.0.0.1', database: 'erp', user: 'sync' }, secrets: { password: 'HW_CHECK_UNSET_PASSWORD' } },
      ],
      mappings: [mapping('good', 'keyed')],
      jobs: [job('j', 'good', { type: 'datetime', field: 'modified' })],
    });
    const report = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    expect(report.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      // The driver's words after the operation (their classification is the connector's error table's).
      expect.stringMatching(/^connections\[0\]: cannot connect: sqlite connection "crm": open the database: .*Cannot open database because the directory does not exist$/),
      'connections[1].secrets.password: names app setting HW_CHECK_UNSET_PASSWORD, which is not set',
    ]);
    expect(report.notices).toEqual(['postgres connection "erp": not opened (a secret is missing); what its jobs name there is not checked']);
  });

  describe('the CLI', () => {
    it('exits 1 naming the problems, 0 when all is well, and prints JSON with --json', async () => {
      write({ connections, mappings: [mapping('good', 'keyed')], jobs: [job('j', 'good', { type: 'datetime', field: 'changed' })] });
      let output = captureCliOutput();
      try {
        expect(await runCli(['check', '--config', dir])).toBe(1);
        expect(output.stderr).toEqual(['error: jobs.yaml: jobs[0].watermark.field (job "j"): column "changed" not found in table "accounts" (sqlite connection "crm")']);
        expect(await runCli(['config', 'validate', '--connect', '--config', dir])).toBe(1);
        expect(await runCli(['check', '--json', '--config', dir])).toBe(1);
        const json = JSON.parse(output.stdout.join('\n')) as { ok: boolean; issues: unknown[] };
        expect(json).toEqual({
          folder: dir,
          ok: false,
          issues: [{ file: 'jobs.yaml', path: 'jobs[0].watermark.field', entry: 'j', message: 'column "changed" not found in table "accounts" (sqlite connection "crm")' }],
          notices: [],
        });
      } finally {
        output.restore();
      }
      write({ connections, mappings: [mapping('good', 'keyed')], jobs: [job('j', 'good', { type: 'datetime', field: 'modified' })] });
      output = captureCliOutput();
      try {
        expect(await runCli(['check', '--config', dir])).toBe(0);
        expect(output.stdout).toEqual([`${dir}: checked against its systems, no problems (2 connections, 1 mapping, 1 job)`]);
        expect(await runCli(['config', 'validate', '--connect', '--config', dir])).toBe(0);
      } finally {
        output.restore();
      }
    });

    it('exits 1 with the validation issues when the folder is not valid, opening nothing', async () => {
      write({ connections, mappings: [mapping('good', 'keyed')], jobs: [job('j', 'good', { type: 'datetime', field: 'modified' }, { pageSize: -1 })] });
      const output = captureCliOutput();
      try {
        expect(await runCli(['check', '--config', dir])).toBe(1);
        expect(output.stderr.join('\n')).toMatch(/^error: jobs\.yaml: jobs\[0\]\.pageSize \(job "j"\): /);
      } finally {
        output.restore();
      }
    });
  });
});
