import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { SourceConnector, SourcePage } from '../../../../connectors/base/source-connector';
import { bindCommon, type SqlDatabase, type SqlRow } from '../../../../connectors/sql/dialect';
import { mysqlOutboxDialect } from '../../../../connectors/sql/outbox-mysql';
import { OutboxSource } from '../../../../connectors/sql/outbox-source';
import { messageIdFor } from '../../../../src/bus/message-properties';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { FakeClock } from '../../../support/fake-clock';

/**
 * The outbox's MySQL/MariaDB statements on the real server (127.0.0.1:3306, root, database
 * `test`; `HIGHWATER_TEST_MYSQL_URL` overrides), through a minimal test adapter of the SQL port
 * over mysql2 (the `mysql` connector brings the real one): claims in one transaction with
 * `FOR UPDATE SKIP LOCKED`, marks, the lease, two readers at once, a later id committing first, a
 * locked row passed over, the retention.
 */
const URL = process.env.HIGHWATER_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const LEASE_SECONDS = 60;

const job: Job = {
  name: 'outbox-mysql', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'm',
  priority: 'normal', watermark: { type: 'number', field: 'id' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: true, skipUnchanged: false, pageSize: 3, lookbackSeconds: 0,
};
const mapping: Mapping = {
  name: 'm', source: { entity: 'customer', key: ['id'] }, target: { entity: 'customers', key: ['id'] },
  fields: [{ target: 'id', source: 'id' }, { target: 'name', source: 'name' }, { target: 'version', source: '$outbox.id' }],
};

/** The SQL port over a mysql2 pool, sessions in ANSI_QUOTES (names are double-quoted) and UTC. */
function mysqlDatabase(pool: mysql.Pool): SqlDatabase {
  const run = async (conn: mysql.Pool | mysql.PoolConnection, sql: string, params: readonly unknown[]) => {
    const [result] = await conn.query(sql, [...params]);
    return (Array.isArray(result) ? result : []) as SqlRow[];
  };
  return {
    // The dialect's kind gains 'mysql' with the mysql connector; nothing here switches on it.
    dialect: { kind: 'mysql' as 'postgres', placeholder: () => '?', bindValue: bindCommon, watermarkParameter: (_t, canonical) => canonical },
    query: (sql, params) => run(pool, sql, params),
    async transaction(work) {
      const conn = await pool.getConnection();
      try {
        await conn.beginTransaction();
        const result = await work({ query: (sql, params) => run(conn, sql, params) });
        await conn.commit();
        return result;
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    },
    close: () => pool.end(),
  };
}

function openPool(): mysql.Pool {
  const pool = mysql.createPool({ uri: URL, connectionLimit: 4, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: true });
  pool.on('connection', (conn) => {
    // The callback pool's connection: its query takes a callback, not a promise.
    conn.query("SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES'), time_zone = '+00:00'");
  });
  return pool;
}

async function run(source: SourceConnector, ack = true): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(mapping, { ...job }, WatermarkValue.initialize('number', null))) {
    pages.push(page);
    if (ack) await source.acknowledge!(page);
  }
  return pages;
}
const trackers = (pages: SourcePage[]) => pages.flatMap((p) => p.messages.map((m) => m.changeTracker));

describe('OutboxSource on MariaDB/MySQL', () => {
  const admin = mysql.createPool({ uri: URL, connectionLimit: 4 });
  const opened: SourceConnector[] = [];
  let table: string;
  let clock: FakeClock;
  const outbox = (settings: Record<string, unknown> = {}) => {
    const db = mysqlDatabase(openPool());
    const source = new OutboxSource(db, { table, leaseSeconds: LEASE_SECONDS, ...settings }, mysqlOutboxDialect, { lookupRelated: async () => undefined, close: () => db.close() }, clock, 'shop');
    opened.push(source);
    return source;
  };
  const write = async (conn: mysql.Pool | mysql.PoolConnection, key: number, action = 'upsert', payload: unknown = { id: key, name: `n${key}` }) => {
    const [result] = await conn.query(`INSERT INTO ${table} (aggregate_key, action, payload) VALUES (?, ?, ?)`, [String(key), action, JSON.stringify(payload)]);
    return String((result as mysql.ResultSetHeader).insertId);
  };
  const column = async (col: string) => ((await admin.query(`SELECT id, ${col} AS v FROM ${table} ORDER BY id`))[0] as Array<{ id: number; v: unknown }>).map((r) => [Number(r.id), r.v]);

  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T12:00:00Z');
    table = `hw_outbox_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE TABLE ${table} (id BIGINT AUTO_INCREMENT PRIMARY KEY, aggregate_key VARCHAR(100) NOT NULL, action VARCHAR(20) NOT NULL,
      payload JSON NULL, created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), claimed_at DATETIME(6) NULL, processed_at DATETIME(6) NULL,
      dead_reason TEXT NULL, INDEX (processed_at, id)) ENGINE=InnoDB`);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
  });
  afterAll(() => admin.end());

  it('claims in id order, marks on acknowledge, gives an unmarked row back only after its lease under the same id', async () => {
    for (const key of [1, 2, 1, 3]) await write(admin, key);
    await write(admin, 2, 'delete', { id: 2 });
    const source = outbox();
    const pages = await run(source, false);
    expect(pages.map((p) => p.messages.map((m) => [m.action, m.sourceKey, m.changeTracker, m.fields.version]))).toEqual([
      [['NewUpdate', '1', '1', 1], ['NewUpdate', '2', '2', 2], ['NewUpdate', '1', '3', 3]],
      [['NewUpdate', '3', '4', 4], ['Delete', '2', '5', 5]],
    ]);
    expect((await column('claimed_at')).map(([, v]) => v !== null)).toEqual([true, true, true, true, true]);
    await source.acknowledge!(pages[0]);
    expect((await column('processed_at')).map(([, v]) => v !== null)).toEqual([true, true, true, false, false]);
    // The second page's reader died before its mark: nothing while its lease holds, then the same ids.
    const ids = pages[1].messages.map((m) => messageIdFor(m));
    await clock.advance(LEASE_SECONDS * 1000 - 1);
    expect(await run(outbox())).toEqual([]);
    await clock.advance(2);
    const again = await run(outbox());
    expect(again.flatMap((p) => p.messages.map((m) => messageIdFor(m)))).toEqual(ids);
    expect((await column('processed_at')).every(([, v]) => v !== null)).toBe(true);
  });

  it('shares the rows between two readers at once: each row to one of them, none left', async () => {
    for (let key = 1; key <= 60; key++) await write(admin, key);
    const [a, b] = await Promise.all([run(outbox()), run(outbox())]);
    const got = [...trackers(a), ...trackers(b)].map(Number).sort((x, y) => x - y);
    expect(got).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(trackers(a).length).toBeGreaterThan(0);
    expect(trackers(b).length).toBeGreaterThan(0);
  });

  it('reads a row whose transaction commits after a later id when it commits, and passes over a locked row', async () => {
    const early = await admin.getConnection();
    const late = await admin.getConnection();
    try {
      await early.beginTransaction();
      const first = await write(early, 1);
      await late.beginTransaction();
      const second = await write(late, 2);
      await late.commit();
      expect(trackers(await run(outbox()))).toEqual([second]);
      await early.commit();
      expect(trackers(await run(outbox()))).toEqual([first]);

      const third = await write(admin, 3);
      const fourth = await write(admin, 4);
      await early.beginTransaction();
      // By primary key: a locking read through no index would lock every row it scans (InnoDB).
      await early.query(`SELECT id FROM ${table} WHERE id = ? FOR UPDATE`, [third]);
      expect(trackers(await run(outbox()))).toEqual([fourth]);
      await early.rollback();
    } finally {
      early.release();
      late.release();
    }
  });

  it('sets a dead row aside and deletes only processed rows older than retentionDays', async () => {
    await write(admin, 1);
    await write(admin, 2, 'merge');
    await write(admin, 3);
    const pages = await run(outbox());
    expect(trackers(pages)).toEqual(['1', '3']);
    expect(pages[0].skipped?.[0].error).toBe('outbox row 2 set aside (dead_reason): action "merge" is not an action of the outbox (known: insert, update, upsert, delete)');
    await admin.query(`UPDATE ${table} SET processed_at = '2026-02-01 00:00:00' WHERE id = 1`);
    await run(outbox({ retentionDays: 7 }));
    expect((await column('id')).map(([id]) => id)).toEqual([2, 3]);
  });
});
