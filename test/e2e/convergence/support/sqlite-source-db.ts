import Database from 'better-sqlite3';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

const SCHEMA = `
  CREATE TABLE categories (id TEXT PRIMARY KEY, name TEXT NOT NULL, modified_at TEXT NOT NULL);
  CREATE INDEX categories_changes ON categories (modified_at, id);
  CREATE TABLE items (id TEXT PRIMARY KEY, category_id TEXT NOT NULL, name TEXT NOT NULL, qty INTEGER NOT NULL, note TEXT,
    modified_at TEXT NOT NULL);
  CREATE INDEX items_changes ON items (modified_at, id);
  CREATE TABLE deleted_items (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);
  CREATE INDEX deleted_items_changes ON deleted_items (deleted_at, id);`;

/** The outbox an application writes in the transaction of each change (read by the `*-outbox` sources). */
const SQLITE_OUTBOX_SCHEMA = `
  CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_type TEXT NOT NULL, aggregate_key TEXT NOT NULL,
    action TEXT NOT NULL, payload TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    claimed_at TEXT, processed_at TEXT, dead_reason TEXT);
  CREATE INDEX outbox_free ON outbox (processed_at, dead_reason, id);`;

/**
 * The SQLite source (WAL, so the host reads while the workload writes). Change timestamps come
 * from the workload's clock, cut to `resolutionMs` (default 100): a coarse clock, so that
 * independent transactions share timestamps too — or, with `stamps: 'database'`, from SQLite's
 * own clock inside the writing transaction at whole seconds, as `DEFAULT CURRENT_TIMESTAMP` or
 * `datetime('now')` write them (`2026-01-02 03:04:05`): dozens of transactions share a second,
 * and rows keep arriving in a second a detection run has already read.
 */
export class SqliteSourceDb implements SourceDb {
  private readonly db: Database.Database;

  constructor(
    readonly file: string,
    private readonly resolutionMs = 100,
    private readonly stamps: 'workload' | 'database' = 'workload',
    /** Also write an outbox row after each change, in its transaction (the `sqlite-outbox` source). */
    private readonly outbox = false,
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    if (!this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'items'").get()) this.db.exec(outbox ? SCHEMA + SQLITE_OUTBOX_SCHEMA : SCHEMA);
  }

  get kind(): 'sqlite' | 'sqlite-outbox' {
    return this.outbox ? 'sqlite-outbox' : 'sqlite';
  }

  stamp(): string | undefined {
    if (this.stamps === 'database') return undefined;
    return new Date(Math.floor(Date.now() / this.resolutionMs) * this.resolutionMs).toISOString();
  }

  async write(op: WriteOp, at: string | undefined, lateMs: number): Promise<void> {
    if (lateMs > 0) await sleep(lateMs);
    const databaseClock = this.db.prepare(`SELECT strftime('%Y-%m-%d %H:%M:%S', 'now') AS s`).pluck();
    let stamp = at ?? this.stamp();
    const item = (row: { id: string } & ItemValues) => [row.category_id, row.name, row.qty, row.note, stamp, row.id];
    const outboxRow = this.outbox ? this.db.prepare('INSERT INTO outbox (aggregate_type, aggregate_key, action, payload) VALUES (?, ?, ?, ?)') : undefined;
    // After the change it stands for, in its transaction: the ids of one record follow its commits.
    const outbox = (type: string, id: string, action: string, payload: object) => void outboxRow?.run(type, id, action, JSON.stringify(payload));
    const itemPayload = (row: { id: string } & ItemValues) => ({ id: row.id, category_id: row.category_id, name: row.name, qty: row.qty, note: row.note, modified_at: stamp });
    this.db.transaction(() => {
      stamp ??= databaseClock.get() as string;
      switch (op.kind) {
        case 'insertCategory':
          this.db.prepare('INSERT INTO categories (id, name, modified_at) VALUES (?, ?, ?)').run(op.id, op.name, stamp);
          outbox('categories', op.id, 'insert', { id: op.id, name: op.name, modified_at: stamp });
          return;
        case 'insertItems': {
          const insert = this.db.prepare('INSERT INTO items (category_id, name, qty, note, modified_at, id) VALUES (?, ?, ?, ?, ?, ?)');
          for (const row of op.rows) {
            insert.run(...item(row));
            outbox('items', row.id, 'insert', itemPayload(row));
          }
          return;
        }
        case 'updateItems': {
          const update = this.db.prepare('UPDATE items SET category_id = ?, name = ?, qty = ?, note = ?, modified_at = ? WHERE id = ?');
          for (const row of op.rows) {
            update.run(...item(row));
            outbox('items', row.id, 'update', itemPayload(row));
          }
          return;
        }
        case 'deleteItems': {
          const remove = this.db.prepare('DELETE FROM items WHERE id = ?');
          const tombstone = this.db.prepare('INSERT INTO deleted_items (id, deleted_at) VALUES (?, ?)');
          for (const id of op.ids) {
            remove.run(id);
            tombstone.run(id, stamp);
            outbox('deleted_items', id, 'delete', { id });
          }
        }
      }
    })();
  }

  async readState(): Promise<SourceState> {
    type Item = ItemValues & { id: string; modified_at: string };
    const categories = this.db.prepare('SELECT id, name, modified_at FROM categories').all() as Array<{ id: string; name: string; modified_at: string }>;
    const items = this.db.prepare('SELECT id, category_id, name, qty, note, modified_at FROM items').all() as Item[];
    const tombstones = this.db.prepare('SELECT id, deleted_at FROM deleted_items').all() as Array<{ id: string; deleted_at: string }>;
    return {
      categories: new Map(categories.map(({ id, ...rest }) => [id, rest])),
      items: new Map(items.map(({ id, ...rest }) => [id, rest])),
      tombstones: new Map(tombstones.map((t) => [t.id, t.deleted_at])),
      ...(this.outbox ? { outboxIds: this.outboxIds() } : {}),
    };
  }

  private outboxIds(): Map<string, string> {
    const rows = this.db.prepare('SELECT aggregate_type AS type, aggregate_key AS key, max(id) AS id FROM outbox GROUP BY aggregate_type, aggregate_key').all() as Array<{ type: string; key: string; id: number }>;
    return new Map(rows.map((r) => [`${r.type}\u0000${r.key}`, String(r.id)]));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
