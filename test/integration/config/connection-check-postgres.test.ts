import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { formatIssueNamed } from '../../../src/platform/config-issue';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';

import { describeEngine, PG_URL } from '../connectors/sql/sql-test-engines';

// Skipped with a printed notice when HIGHWATER_TEST_PG_URL is unset (CI sets it).
const describePg = describeEngine('postgres');

/**
 * `highwater check` on a real PostgreSQL: a wrong column (which used to dead-letter every
 * message), a missing table, a target key without a unique index (ON CONFLICT fails on it), a
 * watermark on a column of the wrong type — each named before anything runs.
 */
describePg('highwater check on PostgreSQL', () => {
  const schema = `hw_check_${process.pid}_${Date.now()}`;
  let client: Client;
  let dir: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });

  beforeAll(async () => {
    client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`CREATE TABLE ${schema}.accounts (id text PRIMARY KEY, name text, updated_at timestamptz NOT NULL, version bigint, code text)`);
    await client.query(`INSERT INTO ${schema}.accounts VALUES ('A-1', 'Acme', now(), 1, 'x')`);
    await client.query(`CREATE TABLE ${schema}.customers (number text, name text)`);
    await client.query(`CREATE TABLE ${schema}.keyed (number text NOT NULL, name text)`);
    await client.query(`CREATE UNIQUE INDEX keyed_number ON ${schema}.keyed (number)`);
    await client.query(`CREATE TABLE ${schema}.partial (number text, name text)`);
    await client.query(`CREATE UNIQUE INDEX partial_number ON ${schema}.partial (number) WHERE number IS NOT NULL`);
    await client.query(`CREATE TABLE ${schema}.pair (company text, number text, name text, PRIMARY KEY (number, company))`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-pg-'));
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client?.end();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(config: { connections: object[]; mappings: object[]; jobs: object[] }): void {
    for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }

  const connection = { name: 'pg', type: 'postgres', settings: { schema }, secrets: { connectionString: 'HW_CHECK_PG_URL' } };
  const mapping = (name: string, target: string, key = ['number'], extra: object[] = []) => ({
    name,
    source: { entity: 'accounts', key: ['id'] },
    target: { entity: target, key },
    fields: [{ target: 'number', source: 'id' }, { target: 'name', source: 'name' }, ...extra],
  });
  const job = (name: string, mappingName: string, watermark: object) => ({ name, schedule: '0 */5 * * * *', source: 'pg', target: 'pg', mapping: mappingName, watermark });
  const secrets = (name: string) => (name === 'HW_CHECK_PG_URL' ? PG_URL : undefined);

  it('names missing tables and columns, target keys without a unique index and watermark type mismatches', async () => {
    write({
      connections: [connection],
      mappings: [
        mapping('misspelt', 'keyed', ['number'], [{ target: 'nmae', source: 'name' }]),
        mapping('no-unique', 'customers'),
        mapping('partial-unique', 'partial'),
        mapping('no-table', 'clients'),
        mapping('pair', 'pair', ['company', 'number'], [{ target: 'company', constant: 'C' }]),
      ],
      jobs: [
        job('j-misspelt', 'misspelt', { type: 'datetime', field: 'updated_at' }),
        job('j-no-unique', 'no-unique', { type: 'number', field: 'updated_at' }),
        job('j-partial', 'partial-unique', { type: 'datetime', field: 'version' }),
        job('j-no-table', 'no-table', { type: 'number', field: 'code' }),
        job('j-pair', 'pair', { type: 'number', field: 'version' }),
      ],
    });
    const report = await checkFolder(dir, { resolveSecret: secrets, validateOptions });
    const pg = '(postgres connection "pg")';
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      `mappings.yaml: mappings[0].fields[2].target (misspelt): column "nmae" not found in table "keyed" ${pg}`,
      `mappings.yaml: mappings[1].target.key (no-unique): no primary key or unique index on (number) of table "customers": upserts match records by it and need one to tell an insert from an update ${pg}`,
      `mappings.yaml: mappings[2].target.key (partial-unique): no primary key or unique index on (number) of table "partial": upserts match records by it and need one to tell an insert from an update ${pg}`,
      `mappings.yaml: mappings[3].target.entity (no-table): table "clients" not found ${pg}`,
      `jobs.yaml: jobs[1].watermark.type (j-no-unique): a number watermark needs a numeric column: column "updated_at" of table "accounts" is timestamp with time zone ${pg}`,
      `jobs.yaml: jobs[2].watermark.type (j-partial): a datetime watermark needs dates: column "version" of table "accounts" (bigint) holds values that are not ISO 8601 dates ${pg}`,
      `jobs.yaml: jobs[3].watermark.type (j-no-table): a number watermark needs a numeric column: column "code" of table "accounts" is text (text orders "10" before "9") ${pg}`,
    ]);
    expect(report.notices).toEqual([]);
    // The README quotes this line as the CLI prints it.
    const readme = fs.readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
    expect(readme).toContain(`\nerror: ${formatIssueNamed(report.issues[1])}\n`);
  });

  it('takes xmin (the system column) as a number watermark of any table, and refuses it as another type', async () => {
    write({ connections: [connection], mappings: [mapping('m', 'keyed')], jobs: [job('by-xmin', 'm', { type: 'number', field: 'xmin' })] });
    const valid = await checkFolder(dir, { resolveSecret: secrets, validateOptions });
    expect([...valid.issues, ...valid.notices]).toEqual([]);
    write({
      connections: [connection],
      mappings: [mapping('m', 'keyed')],
      jobs: [job('by-xmin', 'm', { type: 'number', field: 'xmin' }), job('xmin-as-time', 'm', { type: 'datetime', field: 'xmin' })],
    });
    const report = await checkFolder(dir, { resolveSecret: secrets, validateOptions });
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      'jobs.yaml: jobs[1].watermark.field (xmin-as-time): xmin (change tracking by transaction id) needs watermark.type number, got "datetime"',
    ]);
  });

  it('reports a server that refuses the connection, naming no secret', async () => {
    write({
      connections: [{ ...connection, secrets: { connectionString: 'HW_CHECK_PG_BAD' } }],
      mappings: [mapping('m', 'keyed')],
      jobs: [job('j', 'm', { type: 'datetime', field: 'updated_at' })],
    });
    const bad = 'postgres://postgres:S3cr3tPw@127.0.0.1:1/test';
    const report = await checkFolder(dir, { resolveSecret: (n) => (n === 'HW_CHECK_PG_BAD' ? bad : undefined), validateOptions });
    expect(report.issues.map((i) => `${i.path} (${i.entry})`)).toEqual(['connections[0] (pg)']);
    expect(report.issues[0].message).toMatch(/^cannot connect: postgres connection "pg": connect: .*ECONNREFUSED/);
    expect(JSON.stringify(report)).not.toContain('S3cr3tPw');
  });
});
