import { Pool, type PoolClient } from 'pg';
import { normalizePostgresTimestamp } from '../../../../connectors/sql/postgres-dialect';
import { XMIN_TRACKER_SQL } from '../../../../connectors/sql/postgres-xmin';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

/**
 * The PostgreSQL source: tables in their own schema, change timestamps from `now()` (the start
 * of the writing transaction, microseconds), so a transaction that commits late carries an old
 * timestamp — the classic late commit. Writers run concurrently on a pool.
 */
export class PostgresSourceDb implements SourceDb {
  private readonly pool: Pool;

  private constructor(
    url: string,
    readonly schema: string,
    /** Also write an outbox row after each change, in its transaction (the `postgres-outbox` source). */
    private readonly outbox: boolean,
    /** Read by xmin (the `postgres-xmin` source): the state carries each row's transaction id as its tracker. */
    private readonly xmin = false,
  ) {
    this.pool = new Pool({ connectionString: url, max: 8, options: '-c TimeZone=UTC' });
  }

  get kind(): 'postgres' | 'postgres-outbox' | 'postgres-xmin' {
    return this.outbox ? 'postgres-outbox' : this.xmin ? 'postgres-xmin' : 'postgres';
  }

  /** Creates `schema` (dropping an old one of that name) with the source tables. */
  static async create(url: string, schema: string, outbox = false, xmin = false): Promise<PostgresSourceDb> {
    const db = new PostgresSourceDb(url, schema, outbox, xmin);
    const s = `"${schema}"`;
    await db.pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s};
      CREATE TABLE ${s}.categories (id text PRIMARY KEY, name text NOT NULL, modified_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.categories (modified_at, id);
      CREATE TABLE ${s}.items (id text PRIMARY KEY, category_id text NOT NULL, name text NOT NULL, qty integer NOT NULL, note text,
        modified_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.items (modified_at, id);
      CREATE TABLE ${s}.deleted_items (id text PRIMARY KEY, deleted_at timestamptz NOT NULL);
      CREATE INDEX ON ${s}.deleted_items (deleted_at, id);`);
    if (outbox) {
      await db.pool.query(`CREATE TABLE ${s}.outbox (id bigserial PRIMARY KEY, aggregate_type text NOT NULL, aggregate_key text NOT NULL,
          action text NOT NULL, payload jsonb, created_at timestamptz NOT NULL DEFAULT now(), claimed_at timestamptz,
          processed_at timestamptz, dead_reason text);
        CREATE INDEX ON ${s}.outbox (id) WHERE processed_at IS NULL AND dead_reason IS NULL;`);
    }
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
    // After the change it stands for, in its transaction: the ids of one record follow its commits.
    // The payload's modified_at is the row's as readState reads it.
    const outbox = async (type: string, id: string, action: string, payload: object, stamped?: string) => {
      if (!this.outbox) return;
      const fields = stamped === undefined ? payload : { ...payload, modified_at: normalizePostgresTimestamp(stamped) };
      await client.query(`INSERT INTO ${s}.outbox (aggregate_type, aggregate_key, action, payload) VALUES ($1, $2, $3, $4)`, [type, id, action, JSON.stringify(fields)]);
    };
    const stamp = (result: { rows: Array<{ stamped: string }> }) => result.rows[0].stamped;
    switch (op.kind) {
      case 'insertCategory': {
        const r = await client.query(`INSERT INTO ${s}.categories (id, name, modified_at) VALUES ($1, $2, now()) RETURNING modified_at::text AS stamped`, [op.id, op.name]);
        await outbox('categories', op.id, 'insert', { id: op.id, name: op.name }, stamp(r));
        return;
      }
      case 'insertItems':
        for (const row of op.rows) {
          const r = await client.query(`INSERT INTO ${s}.items (category_id, name, qty, note, modified_at, id) VALUES ($1, $2, $3, $4, now(), $5) RETURNING modified_at::text AS stamped`, item(row));
          await outbox('items', row.id, 'insert', { id: row.id, category_id: row.category_id, name: row.name, qty: row.qty, note: row.note }, stamp(r));
        }
        return;
      case 'updateItems':
        for (const row of op.rows) {
          const r = await client.query(`UPDATE ${s}.items SET category_id = $1, name = $2, qty = $3, note = $4, modified_at = now() WHERE id = $5 RETURNING modified_at::text AS stamped`, item(row));
          await outbox('items', row.id, 'update', { id: row.id, category_id: row.category_id, name: row.name, qty: row.qty, note: row.note }, stamp(r));
        }
        return;
      case 'deleteItems':
        for (const id of op.ids) {
          await client.query(`DELETE FROM ${s}.items WHERE id = $1`, [id]);
          await client.query(`INSERT INTO ${s}.deleted_items (id, deleted_at) VALUES ($1, now())`, [id]);
          await outbox('deleted_items', id, 'delete', { id });
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
      ...(this.outbox ? { outboxIds: await this.outboxIds() } : {}),
      ...(this.xmin ? { outboxIds: await this.xminTrackers() } : {}),
    };
  }

  /** `table \0 id` → the row's transaction id, as the connector reads it. */
  private async xminTrackers(): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ type: string; key: string; id: string }>(
      ['categories', 'items', 'deleted_items'].map((t) => `SELECT '${t}' AS type, id AS key, ${XMIN_TRACKER_SQL}::text AS id FROM "${this.schema}".${t}`).join(' UNION ALL '),
    );
    return new Map(rows.map((r) => [`${r.type}\u0000${r.key}`, r.id]));
  }

  private async outboxIds(): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ type: string; key: string; id: string }>(
      `SELECT aggregate_type AS type, aggregate_key AS key, max(id)::text AS id FROM "${this.schema}".outbox GROUP BY aggregate_type, aggregate_key`,
    );
    return new Map(rows.map((r) => [`${r.type}\u0000${r.key}`, r.id]));
  }

  /** Drops the schema and closes the pool. */
  async close(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch(() => undefined);
    await this.pool.end();
  }
}
