import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import { mysqlTextToIso } from '../../../../connectors/sql/mysql-values';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

/**
 * The MariaDB / MySQL source: tables in their own database. A write transaction takes its stamp
 * once, first (`NOW(6)`, the start of that statement), and commits late when asked: the classic
 * late commit. The writers' sessions run in +05:00, as an application's may: `categories` and
 * `deleted_items` are TIMESTAMP(6) columns stamped with `NOW(6)` (stored as UTC whatever the
 * session's zone), `items` a DATETIME(6) stamped with `UTC_TIMESTAMP(6)` (a DATETIME has no zone:
 * the application writes UTC). Writers run concurrently on a pool. With an outbox, each change
 * also writes its outbox row, after the change, in its transaction (the `mysql-outbox` source).
 */
export class MysqlSourceDb implements SourceDb {
  private constructor(
    private readonly pool: Pool,
    readonly database: string,
    /** Also write an outbox row after each change, in its transaction (the `mysql-outbox` source). */
    private readonly outbox: boolean,
  ) {}

  get kind(): 'mysql' | 'mysql-outbox' {
    return this.outbox ? 'mysql-outbox' : 'mysql';
  }

  /** Creates `database` (dropping an old one of that name) with the source tables (and the outbox). */
  static async create(url: string, database: string, outbox = false): Promise<MysqlSourceDb> {
    const admin = createPool({ uri: url, connectionLimit: 1, multipleStatements: true });
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    } finally {
      await admin.end();
    }
    const at = new URL(url);
    at.pathname = `/${database}`;
    const pool = createPool({ uri: at.toString(), connectionLimit: 8, multipleStatements: true, dateStrings: true });
    pool.on('connection', (conn) => void conn.query(`SET time_zone = '+05:00'`));
    await pool.query(`
      CREATE TABLE categories (id varchar(64) PRIMARY KEY, name text NOT NULL, modified_at timestamp(6) NOT NULL, INDEX (modified_at, id));
      CREATE TABLE items (id varchar(64) PRIMARY KEY, category_id varchar(64) NOT NULL, name text NOT NULL, qty int NOT NULL, note text,
        modified_at datetime(6) NOT NULL, INDEX (modified_at, id));
      CREATE TABLE deleted_items (id varchar(64) PRIMARY KEY, deleted_at timestamp(6) NOT NULL, INDEX (deleted_at, id));`);
    // The outbox as an application on MariaDB declares it: JSON payload, DATETIME(6) times in UTC.
    if (outbox) {
      await pool.query(`CREATE TABLE outbox (id bigint AUTO_INCREMENT PRIMARY KEY, aggregate_type varchar(64) NOT NULL, aggregate_key varchar(64) NOT NULL,
        action varchar(20) NOT NULL, payload json NULL, created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), claimed_at datetime(6) NULL,
        processed_at datetime(6) NULL, dead_reason text NULL, INDEX (processed_at, id))`);
    }
    return new MysqlSourceDb(pool, database, outbox);
  }

  stamp(): undefined {
    return undefined;
  }

  async write(op: WriteOp, _at: string | undefined, lateMs: number): Promise<void> {
    const conn = await this.pool.getConnection();
    try {
      await conn.query('START TRANSACTION');
      await conn.query('SET @ts = NOW(6), @uts = UTC_TIMESTAMP(6)');
      await this.statements(conn, op);
      if (lateMs > 0) await sleep(lateMs);
      await conn.query('COMMIT');
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      conn.release();
    }
  }

  private async statements(conn: PoolConnection, op: WriteOp): Promise<void> {
    const item = (row: { id: string } & ItemValues) => [row.category_id, row.name, row.qty, row.note, row.id];
    const itemPayload = (row: { id: string } & ItemValues) => ({ id: row.id, category_id: row.category_id, name: row.name, qty: row.qty, note: row.note });
    // After the change it stands for, in its transaction: the ids of one record follow its commits.
    // The payload's modified_at is the row's as readState reads it (@ts and @uts are one instant).
    let stamped: string | undefined;
    const outbox = async (type: string, id: string, action: string, payload: object, withStamp = true) => {
      if (!this.outbox) return;
      if (withStamp && stamped === undefined) {
        const [rows] = (await conn.query(`SELECT DATE_FORMAT(@uts, '%Y-%m-%d %H:%i:%s.%f') AS uts`)) as unknown as [Array<{ uts: string }>];
        stamped = mysqlTextToIso(rows[0].uts);
      }
      const fields = withStamp ? { ...payload, modified_at: stamped } : payload;
      await conn.query('INSERT INTO outbox (aggregate_type, aggregate_key, action, payload) VALUES (?, ?, ?, ?)', [type, id, action, JSON.stringify(fields)]);
    };
    switch (op.kind) {
      case 'insertCategory':
        await conn.query('INSERT INTO categories (id, name, modified_at) VALUES (?, ?, @ts)', [op.id, op.name]);
        await outbox('categories', op.id, 'insert', { id: op.id, name: op.name });
        return;
      case 'insertItems':
        for (const row of op.rows) {
          await conn.query('INSERT INTO items (category_id, name, qty, note, modified_at, id) VALUES (?, ?, ?, ?, @uts, ?)', item(row));
          await outbox('items', row.id, 'insert', itemPayload(row));
        }
        return;
      case 'updateItems':
        for (const row of op.rows) {
          await conn.query('UPDATE items SET category_id = ?, name = ?, qty = ?, note = ?, modified_at = @uts WHERE id = ?', item(row));
          await outbox('items', row.id, 'update', itemPayload(row));
        }
        return;
      case 'deleteItems':
        for (const id of op.ids) {
          await conn.query('DELETE FROM items WHERE id = ?', [id]);
          await conn.query('INSERT INTO deleted_items (id, deleted_at) VALUES (?, @ts)', [id]);
          await outbox('deleted_items', id, 'delete', { id }, false);
        }
    }
  }

  /** The tables as the connector reads them: in a UTC session, stamps as ISO 8601 UTC. */
  async readState(): Promise<SourceState> {
    const conn = await this.pool.getConnection();
    try {
      await conn.query(`SET time_zone = '+00:00'`);
      const ts = (text: string) => mysqlTextToIso(text) ?? text;
      const [categories] = (await conn.query('SELECT id, name, modified_at FROM categories')) as unknown as [Array<{ id: string; name: string; modified_at: string }>];
      const [items] = (await conn.query('SELECT id, category_id, name, qty, note, modified_at FROM items')) as unknown as [Array<ItemValues & { id: string; modified_at: string }>];
      const [tombstones] = (await conn.query('SELECT id, deleted_at FROM deleted_items')) as unknown as [Array<{ id: string; deleted_at: string }>];
      return {
        categories: new Map(categories.map(({ id, name, modified_at }) => [id, { name, modified_at: ts(modified_at) }])),
        items: new Map(items.map(({ id, modified_at, ...rest }) => [id, { ...rest, modified_at: ts(modified_at) }])),
        tombstones: new Map(tombstones.map((t) => [t.id, ts(t.deleted_at)])),
        ...(this.outbox ? { outboxIds: await this.outboxIds(conn) } : {}),
      };
    } finally {
      // Back to the writers' zone before the connection is reused.
      await conn.query(`SET time_zone = '+05:00'`).catch(() => undefined);
      conn.release();
    }
  }

  private async outboxIds(conn: PoolConnection): Promise<Map<string, string>> {
    const [rows] = (await conn.query('SELECT aggregate_type AS type, aggregate_key AS `key`, CAST(max(id) AS CHAR) AS id FROM outbox GROUP BY aggregate_type, aggregate_key')) as unknown as [
      Array<{ type: string; key: string; id: string }>,
    ];
    return new Map(rows.map((r) => [`${r.type}\u0000${r.key}`, r.id]));
  }

  /** Drops the database and closes the pool. */
  async close(): Promise<void> {
    await this.pool.query(`DROP DATABASE IF EXISTS ${this.database}`).catch(() => undefined);
    await this.pool.end();
  }
}
