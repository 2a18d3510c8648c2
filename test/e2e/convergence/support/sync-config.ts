import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';

/**
 * The synced system of the convergence and crash suites: a source (SQLite file, PostgreSQL
 * schema, MariaDB/MySQL database or OData service) with `categories`, `items` and the tombstones `deleted_items`, a SQLite target,
 * and the configuration the local host runs. Target items reference target categories (foreign
 * key), so an item that arrives before its category is a TransitiveError: retried, then parked.
 */

/**
 * `*-outbox`: the same database read through the outbox the workload writes beside each change;
 * `postgres-xmin`: the PostgreSQL tables tracked by the writing transaction (`field: xmin`), not by `modified_at`.
 */
export type SourceKind = 'sqlite' | 'postgres' | 'mysql' | 'odata' | 'sqlite-outbox' | 'postgres-outbox' | 'mysql-outbox' | 'postgres-xmin';

/** Whether the source is read as an outbox. */
export const isOutbox = (kind: SourceKind): boolean => kind.endsWith('-outbox');

/** The source connection's `outbox` block: one outbox, a job per aggregate type (its mapping's source entity). */
const OUTBOX = { table: 'outbox', columns: { type: 'aggregate_type' }, leaseSeconds: 30 };

/** Job names, also the `JobName` of their messages. */
export const JOBS = { categories: 'sync-categories', items: 'sync-items', deletedItems: 'sync-deleted-items' } as const;

export interface SyncConfigOptions {
  source: SourceKind;
  /** PostgreSQL only: the schema holding the source tables. */
  pgSchema?: string;
  /** MySQL only: the server and the database holding the source tables; the password (if any) in the env var `passwordSetting`. */
  mysql?: { host: string; port: number; user: string; database: string; passwordSetting?: string };
  /** A MariaDB/MySQL target instead of the SQLite file: the server and its database (`MysqlTargetDb`). */
  mysqlTarget?: { host: string; port: number; user: string; database: string; passwordSetting?: string };
  /** OData only: the service root. */
  serviceUrl?: string;
  /** Jobs' settle margin (`settleSeconds`); unset: the source type's default. */
  settleSeconds?: number;
  /** Env var holding the PostgreSQL connection string (read by the host, never written to files). */
  pgUrlSetting?: string;
  /** Seconds re-read behind the watermark; must exceed the workload's longest late commit. */
  lookbackSeconds: number;
  /** Rows per source page; small, so that rows sharing one timestamp span pages. */
  pageSize: number;
  /** Job schedule (NCRONTAB). */
  schedule: string;
  /** Categories and items jobs: skip a message older than the target row's version field. */
  skipOutdatedMessages: boolean;
  /** Items job: deliveries retried before a missing category parks an item. */
  transitiveRetries: number;
}

function syncConfig(o: SyncConfigOptions) {
  const mysql = {
    name: 'source', type: 'mysql',
    settings: { host: o.mysql?.host, port: o.mysql?.port, user: o.mysql?.user, database: o.mysql?.database },
    secrets: o.mysql?.passwordSetting ? { password: o.mysql.passwordSetting } : {},
  };
  const sources = {
    sqlite: { name: 'source', type: 'sqlite', settings: { file: './source.db' } },
    postgres: { name: 'source', type: 'postgres', settings: { schema: o.pgSchema }, secrets: { connectionString: o.pgUrlSetting } },
    mysql,
    odata: { name: 'source', type: 'odata', settings: { serviceUrl: o.serviceUrl } },
    'sqlite-outbox': { name: 'source', type: 'sqlite', settings: { file: './source.db', outbox: OUTBOX } },
    'postgres-outbox': { name: 'source', type: 'postgres', settings: { schema: o.pgSchema, outbox: OUTBOX }, secrets: { connectionString: o.pgUrlSetting } },
    'mysql-outbox': { ...mysql, settings: { ...mysql.settings, outbox: OUTBOX } },
    'postgres-xmin': { name: 'source', type: 'postgres', settings: { schema: o.pgSchema }, secrets: { connectionString: o.pgUrlSetting } },
  };
  const source = sources[o.source];
  const outbox = isOutbox(o.source);
  // Read from an outbox, the outbox id is every change's tracker and the target's version; tracked by xmin, the row's transaction id.
  const xmin = o.source === 'postgres-xmin';
  const versionField = outbox || xmin ? 'outbox_version' : 'modified_at';
  const versioned = (fields: object[]) => (outbox || xmin ? [...fields, { target: 'outbox_version', source: outbox ? '$outbox.id' : 'xmin' }] : fields);
  const job = (name: string, order: number, mapping: string, priority: string, field: string) => ({
    name,
    order,
    schedule: o.schedule,
    source: 'source',
    target: 'target',
    mapping,
    priority,
    watermark: outbox ? { type: 'number', field: 'id' } : xmin ? { type: 'number', field: 'xmin' } : { type: 'datetime', field },
    pageSize: o.pageSize,
    lookbackSeconds: o.lookbackSeconds,
    ...(o.settleSeconds === undefined ? {} : { settleSeconds: o.settleSeconds }),
  });
  return {
    connections: [source, o.mysqlTarget ? mysqlTargetConnection(o.mysqlTarget) : { name: 'target', type: 'sqlite', settings: { file: './target.db' } }],
    mappings: [
      {
        name: 'categories',
        source: { entity: 'categories', key: ['id'] },
        target: { entity: 'categories', key: ['id'], versionField },
        fields: versioned([
          { target: 'id', source: 'id' },
          { target: 'title', source: 'name', operations: [{ op: 'trim' }] },
          { target: 'modified_at', source: 'modified_at' },
        ]),
      },
      {
        name: 'items',
        source: { entity: 'items', key: ['id'] },
        target: { entity: 'items', key: ['item_id'], versionField },
        fields: versioned([
          { target: 'item_id', source: 'id' },
          { target: 'category_id', source: 'category_id' },
          { target: 'title', source: 'name', operations: [{ op: 'upper' }] },
          { target: 'quantity', source: 'qty' },
          { target: 'note', source: 'note', operations: [{ op: 'trim' }, { op: 'default', value: '-' }] },
          { target: 'modified_at', source: 'modified_at' },
        ]),
      },
      {
        name: 'deleted-items',
        source: { entity: 'deleted_items', key: ['id'] },
        target: { entity: 'items', key: ['item_id'] },
        fields: [{ target: 'item_id', source: 'id' }],
      },
    ],
    jobs: [
      { ...job(JOBS.categories, 10, 'categories', 'high', 'modified_at'), skipOutdatedMessages: o.skipOutdatedMessages },
      { ...job(JOBS.items, 20, 'items', 'normal', 'modified_at'), skipOutdatedMessages: o.skipOutdatedMessages, transitiveRetries: o.transitiveRetries },
      { ...job(JOBS.deletedItems, 30, 'deleted-items', 'low', 'deleted_at'), action: 'Delete' },
    ],
  };
}

function mysqlTargetConnection(t: NonNullable<SyncConfigOptions['mysqlTarget']>) {
  return {
    name: 'target', type: 'mysql',
    settings: { host: t.host, port: t.port, user: t.user, database: t.database },
    secrets: t.passwordSetting ? { password: t.passwordSetting } : {},
  };
}

export function writeSyncConfig(dir: string, options: SyncConfigOptions): void {
  const config = syncConfig(options);
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
}

/** Every write to target items/categories is logged by a trigger: how often each version was applied. */
const TARGET_SCHEMA = `
  CREATE TABLE categories (id TEXT PRIMARY KEY, title TEXT NOT NULL, modified_at TEXT, outbox_version INTEGER);
  CREATE TABLE items (item_id TEXT PRIMARY KEY, category_id TEXT NOT NULL REFERENCES categories (id),
    title TEXT NOT NULL, quantity INTEGER NOT NULL, note TEXT, modified_at TEXT, outbox_version INTEGER);
  CREATE TABLE apply_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, key TEXT NOT NULL, version TEXT, op TEXT NOT NULL);
  CREATE TRIGGER categories_ins AFTER INSERT ON categories BEGIN
    INSERT INTO apply_log (tbl, key, version, op) VALUES ('categories', NEW.id, NEW.modified_at, 'upsert'); END;
  CREATE TRIGGER categories_upd AFTER UPDATE ON categories BEGIN
    INSERT INTO apply_log (tbl, key, version, op) VALUES ('categories', NEW.id, NEW.modified_at, 'upsert'); END;
  CREATE TRIGGER items_ins AFTER INSERT ON items BEGIN
    INSERT INTO apply_log (tbl, key, version, op) VALUES ('items', NEW.item_id, NEW.modified_at, 'upsert'); END;
  CREATE TRIGGER items_upd AFTER UPDATE ON items BEGIN
    INSERT INTO apply_log (tbl, key, version, op) VALUES ('items', NEW.item_id, NEW.modified_at, 'upsert'); END;
  CREATE TRIGGER items_del AFTER DELETE ON items BEGIN
    INSERT INTO apply_log (tbl, key, version, op) VALUES ('items', OLD.item_id, OLD.modified_at, 'delete'); END;`;

export function createTargetDatabase(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(TARGET_SCHEMA);
  } finally {
    db.close();
  }
}
