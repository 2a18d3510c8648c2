import { Pool, type PoolClient } from 'pg';
import { normalizePostgresTimestamp } from '../../../../connectors/sql/postgres-dialect';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

/**
 * The PostgreSQL source: tables in their own schema, change timestamps from `now()` (the start
 * of the writing transaction, microseconds), so a transaction that commits late carries an old
 * timestamp — the classic late commit. Writers run concurrently on a pool.
 */
export class PostgresSourceDb implements SourceDb {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;

  private constructor(
    url: string,
    readonly schema: string,
  ) {
    this.pool = new Pool({ connectionString: url, max: 8, options: '-c TimeZone=UTC' });
  }

  /** Creates `schema` (dropping an old one of that name) with the source tables. */
  static async create(url: string, schema: string): Promise<PostgresSourceDb> {
    const db = new PostgresSourceDb(url, schema);
    const s = `"${schema}"`;
    await db.pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s};
      CREATE TABLE ${s}.categories (id text PRIMARY KEY, name text NOT NULL, modified_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.categories (modified_at, id);
      CREATE TABLE ${s}.items (id text PRIMARY KEY, category_id text NOT NULL, name text NOT NULL, qty integer NOT NULL, note text,
        modified_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.items (modified_at, id);
      CREATE TABLE ${s}.deleted_items (id text PRIMARY KEY, deleted_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.deleted_items (deleted_at, id);`);
    return db;
  }

  stamp(): undefined {
    return undefined;
  }

  async write(op: WriteOp, _at: string | undefined, lateMs: number): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await this.statements(client, op);
      if (lateMs > 0) await sleep(lateMs);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private async statements(client: PoolClient, op: WriteOp): Promise<void> {
    const s = `"${this.schema}"`;
    const item = (row: { id: string } & ItemValues) => [row.category_id, row.name, row.qty, row.note, row.id];
    switch (op.kind) {
      case 'insertCategory':
        await client.query(`INSERT INTO ${s}.categories (id, name, modified_at) VALUES ($1, $2, now())`, [op.id, op.name]);
        return;
      case 'insertItems':
        for (const row of op.rows) {
          await client.query(`INSERT INTO ${s}.items (category_id, name, qty, note, modified_at, id) VALUES ($1, $2, $3, $4, now(), $5)`, item(row));
        }
        return;
      case 'updateItems':
        for (const row of op.rows) {
          await client.query(`UPDATE ${s}.items SET category_id = $1, name = $2, qty = $3, note = $4, modified_at = now() WHERE id = $5`, item(row));
        }
        return;
      case 'deleteItems':
        for (const id of op.ids) {
          await client.query(`DELETE FROM ${s}.items WHERE id = $1`, [id]);
          await client.query(`INSERT INTO ${s}.deleted_items (id, deleted_at) VALUES ($1, now())`, [id]);
        }
    }
  }

  async readState(): Promise<SourceState> {
    const s = `"${this.schema}"`;
    const ts = (text: string) => normalizePostgresTimestamp(text);
    const categories = await this.pool.query<{ id: string; name: string; modified_at: string }>(`SELECT id, name, modified_at::text FROM ${s}.categories`);
    const items = await this.pool.query<ItemValues & { id: string; modified_at: string }>(
      `SELECT id, category_id, name, qty, note, modified_at::text FROM ${s}.items`,
    );
    const tombstones = await this.pool.query<{ id: string; deleted_at: string }>(`SELECT id, deleted_at::text FROM ${s}.deleted_items`);
    return {
      categories: new Map(categories.rows.map(({ id, name, modified_at }) => [id, { name, modified_at: ts(modified_at) }])),
      items: new Map(items.rows.map(({ id, modified_at, ...rest }) => [id, { ...rest, modified_at: ts(modified_at) }])),
      tombstones: new Map(tombstones.rows.map((t) => [t.id, ts(t.deleted_at)])),
    };
  }

  /** Drops the schema and closes the pool. */
  async close(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch(() => undefined);
    await this.pool.end();
  }
}
