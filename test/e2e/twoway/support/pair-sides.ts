import Database from 'better-sqlite3';
import { Pool } from 'pg';

/**
 * The two systems of the two-way suite: side a holds `accounts` (a CRM), side b `customers` (an
 * ERP) with other column names and other status codes. Every insert and update stamps the row by
 * TRIGGER — so Highwater's own writes bump the stamp too and come back to detection as echoes,
 * which must be suppressed. A record is deleted softly (`deleted` = 1) by the workload; Highwater
 * deletes the other side's row outright (a propagated delete).
 *
 * The harness speaks side a's names and notation (`AccountValues`); side b converts.
 */

export type SideName = 'a' | 'b';

/** The fields the workload edits, by their side-a name. */
export const ACCOUNT_FIELDS = ['name', 'email', 'phone', 'credit_limit', 'status'] as const;
export type AccountField = (typeof ACCOUNT_FIELDS)[number];

/** A record's values in side a's names and notation (`status` A/I; `credit_limit` a number). */
export type AccountValues = { name: string | null; email: string | null; phone: string | null; credit_limit: number | null; status: 'A' | 'I' | null };

/** A row as the harness reads it back (in side a's notation). */
export interface SideRow {
  deleted: boolean;
  values: AccountValues;
  stamp: string;
}

/** One side's table: its names for the key, the fields and the stamp. */
export interface SideTable {
  table: string;
  key: string;
  stamp: string;
  columns: Record<AccountField, string>;
  /** Side a's status code → this side's. */
  status: Record<'A' | 'I', string>;
}

export const SIDE_A: SideTable = {
  table: 'accounts', key: 'account_no', stamp: 'modified_at',
  columns: { name: 'name', email: 'email', phone: 'phone', credit_limit: 'credit_limit', status: 'status' },
  status: { A: 'A', I: 'I' },
};

export const SIDE_B: SideTable = {
  table: 'customers', key: 'customer_no', stamp: 'changed_at',
  columns: { name: 'company', email: 'mail', phone: 'telephone', credit_limit: 'limit_amount', status: 'state' },
  status: { A: 'active', I: 'inactive' },
};

/** A side the workload edits and the harness reads back. */
export interface SideDb {
  readonly name: SideName;
  readonly spec: SideTable;
  insert(key: string, values: AccountValues): Promise<void>;
  update(key: string, field: AccountField, value: AccountValues[AccountField]): Promise<void>;
  /** Sets `deleted` = 1 (the stamp moves with it). */
  softDelete(key: string): Promise<void>;
  /** Every row, soft-deleted ones too, by key. */
  readAll(): Promise<Map<string, SideRow>>;
  close(): Promise<void>;
}

/** This side's value of `field` for side a's `value`. */
function toSide(spec: SideTable, field: AccountField, value: AccountValues[AccountField]): unknown {
  if (field !== 'status' || value === null) return value;
  return spec.status[value as 'A' | 'I'];
}

/** Side a's notation of a row read from this side; an unknown status code stays as read (and shows as a difference). */
function fromSide(spec: SideTable, row: Record<string, unknown>): AccountValues {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const status = text(row[spec.columns.status]);
  const code = (Object.keys(spec.status) as Array<'A' | 'I'>).find((c) => spec.status[c] === status);
  const limit = row[spec.columns.credit_limit];
  return {
    name: text(row[spec.columns.name]),
    email: text(row[spec.columns.email]),
    phone: text(row[spec.columns.phone]),
    credit_limit: limit === null || limit === undefined ? null : Number(limit),
    status: (code ?? status) as AccountValues['status'],
  };
}

const columnList = (spec: SideTable) => ACCOUNT_FIELDS.map((f) => spec.columns[f]);

/** A side in a SQLite file (WAL: the host reads and writes it while the workload does). */
export class SqliteSide implements SideDb {
  private readonly db: Database.Database;

  constructor(readonly name: SideName, readonly spec: SideTable, readonly file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    const { table, key, stamp, columns } = spec;
    // Millisecond text, SQLite's clock; AFTER triggers re-stamp the row (recursive triggers are off by default).
    const now = `strftime('%Y-%m-%d %H:%M:%f', 'now')`;
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY, ${columns.name} TEXT, ${columns.email} TEXT, ${columns.phone} TEXT,
        ${columns.credit_limit} NUMERIC, ${columns.status} TEXT, ${stamp} TEXT, deleted INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX IF NOT EXISTS ${table}_changes ON ${table} (${stamp}, ${key});
      CREATE TRIGGER IF NOT EXISTS ${table}_stamp_insert AFTER INSERT ON ${table} BEGIN
        UPDATE ${table} SET ${stamp} = ${now} WHERE ${key} = NEW.${key}; END;
      CREATE TRIGGER IF NOT EXISTS ${table}_stamp_update AFTER UPDATE ON ${table} BEGIN
        UPDATE ${table} SET ${stamp} = ${now} WHERE ${key} = NEW.${key}; END;`);
  }

  async insert(key: string, values: AccountValues): Promise<void> {
    const { table, key: keyColumn } = this.spec;
    const params = ACCOUNT_FIELDS.map((f) => toSide(this.spec, f, values[f]));
    this.db.prepare(`INSERT INTO ${table} (${keyColumn}, ${columnList(this.spec).join(', ')}) VALUES (?, ${params.map(() => '?').join(', ')})`).run(key, ...params);
  }

  async update(key: string, field: AccountField, value: AccountValues[AccountField]): Promise<void> {
    this.db.prepare(`UPDATE ${this.spec.table} SET ${this.spec.columns[field]} = ? WHERE ${this.spec.key} = ?`).run(toSide(this.spec, field, value), key);
  }

  async softDelete(key: string): Promise<void> {
    this.db.prepare(`UPDATE ${this.spec.table} SET deleted = 1 WHERE ${this.spec.key} = ?`).run(key);
  }

  async readAll(): Promise<Map<string, SideRow>> {
    const rows = this.db.prepare(`SELECT * FROM ${this.spec.table}`).all() as Array<Record<string, unknown>>;
    return new Map(rows.map((r) => [String(r[this.spec.key]), { deleted: Number(r.deleted) === 1, values: fromSide(this.spec, r), stamp: String(r[this.spec.stamp]) }]));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** A side in its own PostgreSQL schema; a BEFORE trigger stamps `clock_timestamp()` (microseconds, the moment of the write). */
export class PostgresSide implements SideDb {
  private readonly pool: Pool;

  private constructor(readonly name: SideName, readonly spec: SideTable, url: string, readonly schema: string) {
    this.pool = new Pool({ connectionString: url, max: 4, options: '-c TimeZone=UTC' });
  }

  /** Creates `schema` (dropping an old one of that name) with the side's table and trigger. */
  static async create(name: SideName, spec: SideTable, url: string, schema: string): Promise<PostgresSide> {
    const side = new PostgresSide(name, spec, url, schema);
    const { table, key, stamp, columns } = spec;
    const t = `"${schema}".${table}`;
    await side.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; CREATE SCHEMA "${schema}";
      CREATE TABLE ${t} (${key} text PRIMARY KEY, ${columns.name} text, ${columns.email} text, ${columns.phone} text,
        ${columns.credit_limit} numeric(12,2), ${columns.status} text, ${stamp} timestamptz, deleted integer NOT NULL DEFAULT 0);
      CREATE INDEX ON ${t} (${stamp}, ${key});
      CREATE FUNCTION "${schema}".stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.${stamp} = clock_timestamp(); RETURN NEW; END $$;
      CREATE TRIGGER ${table}_stamp BEFORE INSERT OR UPDATE ON ${t} FOR EACH ROW EXECUTE FUNCTION "${schema}".stamp();`);
    return side;
  }

  private get table(): string {
    return `"${this.schema}".${this.spec.table}`;
  }

  async insert(key: string, values: AccountValues): Promise<void> {
    const params = ACCOUNT_FIELDS.map((f) => toSide(this.spec, f, values[f]));
    const placeholders = params.map((_, i) => `$${i + 2}`).join(', ');
    await this.pool.query(`INSERT INTO ${this.table} (${this.spec.key}, ${columnList(this.spec).join(', ')}) VALUES ($1, ${placeholders})`, [key, ...params]);
  }

  async update(key: string, field: AccountField, value: AccountValues[AccountField]): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET ${this.spec.columns[field]} = $1 WHERE ${this.spec.key} = $2`, [toSide(this.spec, field, value), key]);
  }

  async softDelete(key: string): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET deleted = 1 WHERE ${this.spec.key} = $1`, [key]);
  }

  async readAll(): Promise<Map<string, SideRow>> {
    const { rows } = await this.pool.query<Record<string, unknown>>(`SELECT *, ${this.spec.stamp}::text AS stamp_text FROM ${this.table}`);
    return new Map(rows.map((r) => [String(r[this.spec.key]), { deleted: Number(r.deleted) === 1, values: fromSide(this.spec, r), stamp: String(r.stamp_text) }]));
  }

  /** Drops the schema and closes the pool. */
  async close(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch(() => undefined);
    await this.pool.end();
  }
}
