import { Client } from 'pg';
import { EntityChecks } from '../../../../src/config/connection-check-entities';
import { openPostgresDescriber } from '../../../../connectors/sql/sql-describe';
import { STABLE_XID_SQL, widenXid, XMIN_TRACKER_SQL } from '../../../../connectors/sql/postgres-xmin';
import { PostgresDatabase } from '../../../../connectors/sql/postgres-dialect';
import { SqlSource } from '../../../../connectors/sql/sql-source';
import type { ConfigIssue } from '../../../../src/platform/config-issue';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, openEngine, PG_URL, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * Change tracking by transaction (`watermark: { type: number, field: xmin }`) on a real
 * PostgreSQL: the gap a counter leaves when the application draws it in one transaction and
 * writes it in a later one (a column watermark passes the row for ever; xmin finds it), a
 * transaction open during a run, updates, and the tracker that redelivery checks and reads by
 * key see.
 */
const job: Job = {
  name: 'orders', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'orders',
  priority: 'normal', watermark: { type: 'number', field: 'xmin' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
const byId: Job = { ...job, watermark: { type: 'number', field: 'id' } };
const mapping: Mapping = {
  name: 'orders', source: { entity: 'orders', key: ['id'] }, target: { entity: 'o', key: ['id'] },
  fields: [{ target: 'id', source: 'id' }, { target: 'name', source: 'name' }],
};
const ids = (run: { messages: Array<{ sourceKey: string }> }) => run.messages.map((m) => m.sourceKey);

describeEngine('postgres')('change tracking by xmin on PostgreSQL', () => {
  let db: SqlTestEngine;
  let app: Client;
  let schema: string;
  beforeAll(async () => {
    db = await openEngine('postgres');
    schema = String(db.connection().settings.schema);
    app = new Client({ connectionString: PG_URL, application_name: 'slow-app' });
    await app.connect();
    await app.query(`SET search_path TO ${schema}`);
  });
  afterAll(async () => {
    await app?.query('ROLLBACK').catch(() => undefined);
    await app?.end();
    await db?.close();
  });
  beforeEach(async () => {
    await db.exec('DROP TABLE IF EXISTS orders; DROP SEQUENCE IF EXISTS order_ids');
    await db.exec('CREATE SEQUENCE order_ids; CREATE TABLE orders (id bigint PRIMARY KEY, name text)');
  });

  /** A number the application draws now and writes later (a slow commit): `nextval` in its own transaction. */
  async function draw(): Promise<string> {
    const { rows } = await app.query(`SELECT nextval('order_ids')::text AS id`);
    return String(rows[0].id);
  }

  it('a number drawn before a higher one was committed and read: missed for ever by field id, found by xmin', async () => {
    const watermarks = { id: WatermarkValue.initialize('number', null), xmin: WatermarkValue.initialize('number', null) };
    const first = await draw();
    await db.exec(`INSERT INTO orders VALUES (nextval('order_ids'), 'second')`);
    expect(ids(await readRun(db.source(), mapping, byId, watermarks.id))).toEqual(['2']);
    expect(ids(await readRun(db.source(), mapping, job, watermarks.xmin))).toEqual(['2']);
    expect(watermarks.id.value).toBe('2');
    // The first number is written now, below the watermark of field id.
    await app.query(`INSERT INTO orders VALUES (${first}, 'first')`);
    expect(ids(await readRun(db.source(), mapping, byId, watermarks.id))).toEqual([]);
    expect(ids(await readRun(db.source(), mapping, job, watermarks.xmin))).toEqual([first]);
    expect(ids(await readRun(db.source(), mapping, job, watermarks.xmin))).toEqual([]);
  });

  it('rows of a transaction open during a run are left to the run after its commit; the open one is named', async () => {
    await db.exec(`INSERT INTO orders VALUES (1, 'before')`);
    await app.query('BEGIN');
    await app.query(`INSERT INTO orders VALUES (2, 'open')`);
    const { rows } = await app.query('SELECT pg_current_xact_id()::text AS xid');
    // A later transaction commits while the first is open: its rows wait too (its id is higher).
    await db.exec(`INSERT INTO orders VALUES (3, 'later')`);
    const warnings: string[] = [];
    const source = new SqlSource(new PostgresDatabase({ connectionString: PG_URL, schema, connectionName: 'pg', redact: (t) => t }), { now: () => new Date(), sleep: async () => undefined }, (w) => warnings.push(w));
    try {
      const watermark = WatermarkValue.initialize('number', null);
      expect(ids(await readRun(source, mapping, { ...job, settleSeconds: 0 }, watermark))).toEqual(['1']);
      expect(warnings).toEqual([expect.stringMatching(new RegExp(`^job "orders": reads rows of transactions up to ${BigInt(rows[0].xid) - 1n} only: a transaction open since .+Z \\(pid \\d+, application "slow-app"\\) holds the rest until it ends$`))]);
      await app.query('COMMIT');
      const after = await readRun(source, mapping, job, watermark);
      expect(ids(after)).toEqual(['2', '3']);
      // The tracker is the writing transaction's 64-bit id, as PostgreSQL reports it.
      expect(after.messages[0].changeTracker).toBe(rows[0].xid);
      expect(watermark.value).toBe(after.messages[1].changeTracker);
    } finally {
      await source.close();
    }
  });

  it('an update is a change again; currentTrackers and readByKeys show the tracker detection sends', async () => {
    await db.exec(`INSERT INTO orders VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const source = db.source();
    const watermark = WatermarkValue.initialize('number', null);
    const first = await readRun(source, mapping, job, watermark);
    expect(ids(first)).toEqual(['1', '2', '3']);
    expect(first.pages.length).toBe(2);
    const sent = new Map(first.messages.map((m) => [m.sourceKey, m.changeTracker]));
    expect(await source.currentTrackers!(mapping, job, ['1', '2', '3', '404'])).toEqual(sent);
    const read = await source.readByKeys!(mapping, job, ['1', '2', '3']);
    expect(new Map([...read].map(([k, m]) => [k, m.changeTracker]))).toEqual(sent);
    expect(read.get('2')?.fields).toEqual({ id: '2', name: 'b' });

    await db.exec(`UPDATE orders SET name = 'B' WHERE id = 2`);
    await db.exec('DELETE FROM orders WHERE id = 3');
    const second = await readRun(source, mapping, job, watermark);
    expect(ids(second)).toEqual(['2']);
    expect(BigInt(second.messages[0].changeTracker)).toBeGreaterThan(BigInt(String(sent.get('1'))));
    expect(await source.currentTrackers!(mapping, job, ['1', '2', '3'])).toEqual(new Map([['1', sent.get('1')], ['2', second.messages[0].changeTracker]]));
    expect((await source.readByKeys!(mapping, job, ['2'])).get('2')?.changeTracker).toBe(second.messages[0].changeTracker);
    expect(ids(await readRun(source, mapping, job, watermark))).toEqual([]);
  });

  it('reads a run in one streamed query: stopping early gives the connection back, a cursor resumes, a pool of one pages by LIMIT', async () => {
    await db.exec(`INSERT INTO orders SELECT g, 'n' || g FROM generate_series(1, 7) g`);
    const open = async () => (await db.select(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'highwater' AND state LIKE 'idle in transaction%' AND query LIKE '%highwater_rows%'`))[0].n;
    const two = db.source({ ...db.connection(), maxConcurrency: 2 });
    const watermark = WatermarkValue.initialize('number', null);
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      for await (const page of two.retrieveChanges(mapping, job, watermark)) {
        expect(page.messages.map((m) => m.sourceKey)).toEqual(['1', '2']);
        cursor = page.cursor;
        expect(await open()).toBe(1);
        break;
      }
    }
    expect(await open()).toBe(0);
    const rest: string[] = [];
    for await (const page of two.retrieveChanges(mapping, job, watermark, { cursor })) rest.push(...page.messages.map((m) => m.sourceKey));
    expect(rest).toEqual(['3', '4', '5', '6', '7']);
    const one = await readRun(db.source({ ...db.connection(), maxConcurrency: 1 }), mapping, job, WatermarkValue.initialize('number', null));
    expect(ids(one)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(one.pages.map((p) => p.messages.length)).toEqual([2, 2, 2, 1]);
    // Half the pool streams at most: while one run holds a connection of two, another pages by LIMIT.
    const held = two.retrieveChanges(mapping, job, WatermarkValue.initialize('number', null))[Symbol.asyncIterator]();
    expect((await held.next()).value?.messages.map((m: { sourceKey: string }) => m.sourceKey)).toEqual(['1', '2']);
    expect(ids(await readRun(two, mapping, job, WatermarkValue.initialize('number', null)))).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    await held.return?.(undefined);
    expect(await open()).toBe(0);
    const pool = new PostgresDatabase({ connectionString: PG_URL, schema, connectionName: 'pg', redact: (t) => t, maxConnections: 4 });
    try {
      const streams = [0, 1, 2].map(() => pool.stream('SELECT 1 AS x', [], 10, 'probe'));
      expect(streams.map((st) => st !== undefined)).toEqual([true, true, false]);
      for (const st of streams) for await (const batch of st ?? []) expect(batch).toEqual([{ x: 1 }]);
      expect(pool.stream('SELECT 1 AS x', [], 10, 'probe')).toBeDefined();
    } finally {
      await pool.close();
    }
  });

  it('widens xmin in SQL as widenXid does against the statement\'s stable transaction id', async () => {
    await db.exec(`INSERT INTO orders VALUES (1, 'a'); INSERT INTO orders VALUES (2, 'b')`);
    await app.query('BEGIN');
    await app.query(`UPDATE orders SET name = 'B' WHERE id = 2`);
    await db.exec(`INSERT INTO orders VALUES (3, 'c')`);
    await app.query('COMMIT');
    const rows = await db.select(`SELECT xmin::text AS raw, ${XMIN_TRACKER_SQL}::text AS tracker, ${STABLE_XID_SQL}::text AS reference, pg_current_snapshot()::text AS snap FROM orders ORDER BY id`);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.tracker).toBe(String(widenXid(BigInt(String(row.raw)), BigInt(String(row.reference)))));
      // Epoch 0 here: the widened id is the raw one, below the snapshot's xmax, at or below the reference.
      expect(row.tracker).toBe(row.raw);
      expect(BigInt(String(row.tracker))).toBeLessThan(BigInt(String(row.snap).split(':')[1]));
    }
  });

  it('highwater check takes xmin as the watermark of any table (a system column, no column of the table)', async () => {
    const describer = openPostgresDescriber({ connection: db.connection(), resolveSecret: (n) => (n === 'HW_TEST_PG_URL' ? PG_URL : undefined), configDir: '.' });
    try {
      const issues: ConfigIssue[] = [];
      const checks = new EntityChecks({ connections: 'c', mappings: 'm', jobs: 'j', pairs: 'p' }, issues);
      const conn = { label: 'postgres connection "pg"', describer, upsertNeedsUniqueKey: true };
      await checks.job(conn, mapping, job, { index: 0, name: 'orders' });
      await checks.job(conn, mapping, { ...job, watermark: { type: 'number', field: 'xmax' } }, { index: 1, name: 'other' });
      expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual(['jobs[1].watermark.field: column "xmax" not found in table "orders" (postgres connection "pg")']);
    } finally {
      await describer.close();
    }
  });
});
