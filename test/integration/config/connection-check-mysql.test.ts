import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { describeEngine, MYSQL_URL } from '../connectors/sql/sql-test-engines';

/**
 * `highwater check` on a real MariaDB: a wrong column, a missing table, a target key without a
 * unique index (a prefix index does not count), a watermark on a column of the wrong type — each
 * named before anything runs; a refused connection without its password. Skipped with a printed
 * notice when HIGHWATER_TEST_MYSQL_URL is unset (CI sets it).
 */
describeEngine('mysql')('highwater check on MariaDB/MySQL', () => {
  const database = `hw_check_${process.pid}_${Date.now()}`;
  let admin: Connection;
  let dir: string;
  let url: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });

  beforeAll(async () => {
    admin = await createConnection({ uri: String(MYSQL_URL), multipleStatements: true });
    await admin.query(`CREATE DATABASE ${database}; USE ${database};
      CREATE TABLE accounts (id varchar(20) PRIMARY KEY, name text, updated_at timestamp(6) NOT NULL, version bigint, code text, active tinyint(1));
      INSERT INTO accounts VALUES ('A-1', 'Acme', NOW(6), 1, 'x', 1);
      CREATE TABLE customers (number varchar(20), name text);
      CREATE TABLE keyed (number varchar(20) NOT NULL, name text, UNIQUE INDEX (number));
      CREATE TABLE prefixed (number varchar(200), name text, UNIQUE INDEX (number(10)));
      CREATE TABLE pair (company varchar(20), number varchar(20), name text, PRIMARY KEY (number, company));`);
    const parsed = new URL(String(MYSQL_URL));
    parsed.pathname = `/${database}`;
    url = parsed.toString();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-mysql-'));
  });
  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(config: { connections: object[]; mappings: object[]; jobs: object[] }): void {
    for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }

  const connection = { name: 'shop', type: 'mysql', secrets: { connectionString: 'HW_CHECK_MYSQL_URL' } };
  const mapping = (name: string, target: string, key = ['number'], extra: object[] = []) => ({
    name,
    source: { entity: 'accounts', key: ['id'] },
    target: { entity: target, key },
    fields: [{ target: 'number', source: 'id' }, { target: 'name', source: 'name' }, ...extra],
  });
  const job = (name: string, mappingName: string, watermark: object) => ({ name, schedule: '0 */5 * * * *', source: 'shop', target: 'shop', mapping: mappingName, watermark });

  it('names missing tables and columns, target keys without a unique index and watermark type mismatches', async () => {
    write({
      connections: [connection],
      mappings: [
        mapping('misspelt', 'keyed', ['number'], [{ target: 'nmae', source: 'name' }]),
        mapping('no-unique', 'customers'),
        mapping('prefix-unique', 'prefixed'),
        mapping('no-table', 'clients'),
        mapping('pair', 'pair', ['company', 'number'], [{ target: 'company', constant: 'C' }]),
      ],
      jobs: [
        job('j-misspelt', 'misspelt', { type: 'datetime', field: 'updated_at' }),
        job('j-no-unique', 'no-unique', { type: 'number', field: 'updated_at' }),
        job('j-prefix', 'prefix-unique', { type: 'datetime', field: 'version' }),
        job('j-no-table', 'no-table', { type: 'number', field: 'code' }),
        job('j-pair', 'pair', { type: 'number', field: 'version' }),
      ],
    });
    const report = await checkFolder(dir, { resolveSecret: (n) => (n === 'HW_CHECK_MYSQL_URL' ? url : undefined), validateOptions });
    const at = '(mysql connection "shop")';
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      `mappings.yaml: mappings[0].fields[2].target (misspelt): column "nmae" not found in table "keyed" ${at}`,
      `mappings.yaml: mappings[1].target.key (no-unique): no primary key or unique index on (number) of table "customers": upserts match records by it and need one to tell an insert from an update ${at}`,
      `mappings.yaml: mappings[2].target.key (prefix-unique): no primary key or unique index on (number) of table "prefixed": upserts match records by it and need one to tell an insert from an update ${at}`,
      `mappings.yaml: mappings[3].target.entity (no-table): table "clients" not found ${at}`,
      `jobs.yaml: jobs[1].watermark.type (j-no-unique): a number watermark needs a numeric column: column "updated_at" of table "accounts" is timestamp(6) ${at}`,
      expect.stringMatching(/^jobs\.yaml: jobs\[2\]\.watermark\.type \(j-prefix\): a datetime watermark needs dates: column "version" of table "accounts" \(bigint(\(20\))?\)/),
      `jobs.yaml: jobs[3].watermark.type (j-no-table): a number watermark needs a numeric column: column "code" of table "accounts" is text (text orders "10" before "9") ${at}`,
    ]);
    expect(report.notices).toEqual([]);
  });

  it('reports a server that refuses the connection, naming no secret', async () => {
    write({
      connections: [{ ...connection, secrets: { connectionString: 'HW_CHECK_MYSQL_BAD' } }],
      mappings: [mapping('m', 'keyed')],
      jobs: [job('j', 'm', { type: 'datetime', field: 'updated_at' })],
    });
    const bad = 'mysql://root:S3cr3tPw@127.0.0.1:1/test';
    const report = await checkFolder(dir, { resolveSecret: (n) => (n === 'HW_CHECK_MYSQL_BAD' ? bad : undefined), validateOptions });
    expect(report.issues.map((i) => `${i.path} (${i.entry})`)).toEqual(['connections[0] (shop)']);
    expect(report.issues[0].message).toMatch(/^cannot connect: mysql connection "shop": connect: the server is unreachable \(ECONNREFUSED\)/);
    expect(JSON.stringify(report)).not.toContain('S3cr3tPw');
  });
});
