import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import { mysqlTextToIso } from '../../../../connectors/sql/mysql-values';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

/**
 * The MariaDB / MySQL source: tables in their own database. A write transaction takes its stamp
 * once, first (`NOW(6)`, the start of that statement), and commits late when asked: the classic
 * late commit. The writers' sessions run in +05:00, as an application's may: `categories` and
 * `deleted_items` are TIMESTAMP(6) columns stamped with `NOW(6)` (stored as UTC whatever the
 * session's zone), `items` a DATETIME(6) stamped with `UTC_TIMESTAMP(6)` (a DATETIME has no zone:
 * the application writes UTC). Writers run concurrently on a pool.
 */
export class MysqlSourceDb implements SourceDb {
  readonly kind = 'mysql' as const;

  private constructor(
    private readonly pool: Pool,
    readonly database: string,
  ) {}

  /** Creates `database` (dropping an old one of that name) with the source tables. */
  static async create(url: string, database: string): Promise<MysqlSourceDb> {
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
    return new MysqlSourceDb(pool, database);
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
    switch (op.kind) {
      case 'insertCategory':
        await conn.query('INSERT INTO categories (id, name, modified_at) VALUES (?, ?, @ts)', [op.id, op.name]);
        return;
      case 'insertItems':
        for (const row of op.rows) await conn.query('INSERT INTO items (category_id, name, qty, note, modified_at, id) VALUES (?, ?, ?, ?, @uts, ?)', item(row));
        return;
      case 'updateItems':
        for (const row of op.rows) await conn.query('UPDATE items SET category_id = ?, name = ?, qty = ?, note = ?, modified_at = @uts WHERE id = ?', item(row));
        return;
      case 'deleteItems':
        for (const id of op.ids) {
          await conn.query('DELETE FROM items WHERE id = ?', [id]);
          await conn.query('INSERT INTO deleted_items (id, deleted_at) VALUES (?, @ts)', [id]);
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
      };
    } finally {
      // Back to the writers' zone before the connection is reused.
      await conn.query(`SET time_zone = '+05:00'`).catch(() => undefined);
      conn.release();
    }
  }

  /** Drops the database and closes the pool. */
  async close(): Promise<void> {
    await this.pool.query(`DROP DATABASE IF EXISTS ${this.database}`).catch(() => undefined);
    await this.pool.end();
  }
}
