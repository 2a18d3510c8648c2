import { createConnection, type Connection as MysqlConnection } from 'mysql2/promise';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { sqlConnectorFactories } from '../../../../connectors/sql/sql-connectors';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { describeEngine, MYSQL_URL, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * What is MariaDB / MySQL's own in the source: the settled horizon held back by another
 * session's open transaction (innodb_trx) and by a running statement, second-resolution
 * TIMESTAMP columns stamped by `ON UPDATE CURRENT_TIMESTAMP`, an AUTO_INCREMENT counter whose
 * lower number is still uncommitted, sessions in other time zones, utf8mb4 text.
 */
const job: Job = {
  name: 'orders', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'orders',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const mapping = (table: string): Mapping => ({
  name: 'orders', source: { entity: table, key: ['id'] }, target: { entity: 't', key: ['id'] },
  fields: ['id', 'label', 'modified'].map((f) => ({ source: f, target: f })),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for the start of the next second (the server runs on this machine's clock), so that a step after it stays within that second. */
const nextSecond = () => sleep(1000 - (Date.now() % 1000) + 20);

describeEngine('mysql')('MySQL source: never-miss on the real server', () => {
  let db: SqlTestEngine;
  let other: MysqlConnection;
  let warnings: string[];
  let source: SourceConnector;
  let tables = 0;

  beforeAll(async () => {
    db = await openEngine('mysql');
  });
  beforeEach(async () => {
    warnings = [];
    const url = new URL(String(MYSQL_URL));
    url.pathname = `/${String((await db.select('SELECT DATABASE() AS d'))[0].d)}`;
    other = await createConnection({ uri: url.toString(), dateStrings: true });
    const registry = new ConnectorRegistry(sqlConnectorFactories);
    source = registry.createSource({ connection: db.connection(), resolveSecret: () => url.toString(), configDir: '/tmp', warn: (m: string) => warnings.push(m) });
  });
  afterEach(async () => {
    await other.end();
    await source.close();
  });
  afterAll(() => db?.close());

  const table = async (columns: string) => {
    const name = `src_${++tables}`;
    await db.exec(`CREATE TABLE ${name} (${columns})`);
    return name;
  };

  it('leaves rows stamped after the start of an open transaction to a later run, and reads the late row once it commits', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20), modified datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)');
    await db.exec(`INSERT INTO ${t} (id, label) VALUES (1, 'early')`);
    // The horizon is the transaction's start in whole seconds minus the settle margin (1 s).
    await sleep(2100);
    // Another session stamps a row now and commits late.
    await other.query('START TRANSACTION');
    await other.query(`INSERT INTO ${t} (id, label) VALUES (2, 'late')`);
    await sleep(1100);
    await db.exec(`INSERT INTO ${t} (id, label) VALUES (3, 'after')`);
    await sleep(1100);
    const watermark = WatermarkValue.initialize('datetime', null);
    const first = await readRun(source, mapping(t), job, watermark);
    expect(first.messages.map((m) => m.sourceKey)).toEqual(['1']);
    expect(warnings).toContainEqual(expect.stringMatching(/reads changes stamped before \S+Z only: a transaction open since then \(pid \d+, application "\w+@[^"]+"\)/));

    await other.query('COMMIT');
    await sleep(1100);
    const second = await readRun(source, mapping(t), job, watermark);
    expect(second.messages.map((m) => m.sourceKey)).toEqual(['2', '3']);
    // Messages carry the stamps as ISO 8601 UTC; the watermark is the canonical form of the last.
    expect(second.messages[1].fields.modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/);
    expect(watermark.value).toBe(WatermarkValue.canonicalize('datetime', second.messages[1].fields.modified));
  }, 30_000);

  it('holds the horizon at the start of a running statement that has stamped its row but not committed it', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20), modified datetime(6) NOT NULL');
    // NOW(6) is taken when the statement begins; the row commits three seconds later.
    const slow = other.query(`INSERT INTO ${t} SELECT 1, 'slow', NOW(6) FROM (SELECT SLEEP(3) AS s) AS pause`);
    await sleep(500);
    await db.exec(`INSERT INTO ${t} VALUES (2, 'mid', NOW(6))`);
    await sleep(2000);
    const watermark = WatermarkValue.initialize('datetime', null);
    // Reading 'mid' now would move the watermark past the slow row's stamp before it commits.
    expect((await readRun(source, mapping(t), job, watermark)).messages).toEqual([]);
    await slow;
    await sleep(1100);
    const after = await readRun(source, mapping(t), job, watermark);
    expect(after.messages.map((m) => m.fields.label)).toEqual(['slow', 'mid']);
  }, 30_000);

  it('leaves rows of a second-resolution TIMESTAMP (ON UPDATE CURRENT_TIMESTAMP) to the next run until their second is over', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20), modified timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP');
    await nextSecond();
    await db.exec(`INSERT INTO ${t} (id, label) VALUES (1, 'a'), (2, 'b')`);
    const watermark = WatermarkValue.initialize('datetime', null);
    const now = await readRun(source, mapping(t), { ...job, settleSeconds: 0 }, watermark);
    expect(now.messages).toEqual([]);
    await nextSecond();
    // An update in a later second: the ON UPDATE stamp moves the row on.
    await db.exec(`UPDATE ${t} SET label = 'b2' WHERE id = 2`);
    const later = await readRun(source, mapping(t), { ...job, settleSeconds: 0 }, watermark);
    expect(later.messages.map((m) => [m.sourceKey, m.fields.label])).toEqual([['1', 'a']]);
    await sleep(1100);
    const last = await readRun(source, mapping(t), { ...job, settleSeconds: 0 }, watermark);
    expect(last.messages.map((m) => [m.sourceKey, m.fields.label])).toEqual([['2', 'b2']]);
  }, 30_000);

  it('reads a TIMESTAMP written by a session in another time zone as the UTC instant it is', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20), modified timestamp(6) NOT NULL');
    await other.query(`SET time_zone = '+05:00'`);
    await other.query(`INSERT INTO ${t} VALUES (1, 'zoned', '2026-01-02 08:04:05.123456')`);
    const { messages } = await readRun(source, mapping(t), job, WatermarkValue.initialize('datetime', null));
    expect(messages.map((m) => m.fields.modified)).toEqual(['2026-01-02T03:04:05.123456Z']);
    expect(messages[0].changeTracker).toBe('2026-01-02T03:04:05.1234560Z');
  });

  it('reads nothing past an AUTO_INCREMENT number another transaction holds uncommitted, and everything once it commits', async () => {
    const t = await table('id int AUTO_INCREMENT PRIMARY KEY, label varchar(20), modified datetime(6)');
    await other.query('START TRANSACTION');
    await other.query(`INSERT INTO ${t} (label) VALUES ('held')`);
    await db.exec(`INSERT INTO ${t} (label) VALUES ('committed')`);
    const counter = { ...job, watermark: { type: 'number', field: 'id' } };
    const watermark = WatermarkValue.initialize('number', null);
    const initial = watermark.value;
    const first = await readRun(source, mapping(t), counter, watermark);
    expect(first.messages).toEqual([]);
    expect(watermark.value).toBe(initial);
    expect(warnings.some((w) => w.includes('kept writing'))).toBe(true);
    await other.query('COMMIT');
    const second = await readRun(source, mapping(t), counter, watermark);
    expect(second.messages.map((m) => [m.sourceKey, m.fields.label])).toEqual([['1', 'held'], ['2', 'committed']]);
    expect(watermark.value).toBe('2');
  }, 30_000);

  it('carries utf8mb4 text (4-byte characters) unchanged', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20), modified datetime(6)');
    await db.insert(t, [{ id: 1, label: 'ü😀𝄞', modified: '2026-01-01T00:00:00.000Z' }]);
    const { messages } = await readRun(source, mapping(t), job, WatermarkValue.initialize('datetime', null));
    expect(messages.map((m) => m.fields.label)).toEqual(['ü😀𝄞']);
  });
});
