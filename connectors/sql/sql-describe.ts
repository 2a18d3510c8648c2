import type { ColumnKind, DescribedColumn, DescriberFactory, EntityDescriber, EntityDescription } from '../base/entity-describer';
import { quoteEntity, quoteIdentifier, type SqlDatabase } from './dialect';
import { XMIN_FIELD } from './postgres-xmin';
import { openPostgres, openSqlite } from './sql-connectors';

/**
 * Tables of a SQL connection as `highwater check` reads them: columns with their declared types,
 * and the unique column sets (primary key, unique indexes without a WHERE or expressions — the
 * ones an `ON CONFLICT (key)` can use). Read from the catalog: `pragma_table_info` /
 * `pragma_index_list` on SQLite, `pg_attribute` / `pg_index` on PostgreSQL.
 */

/** SQLite's type affinity rules (in their order), with date and boolean names told apart. */
function sqliteKind(declared: string): ColumnKind {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'text';
  if (t === '' || t.includes('BLOB')) return 'other';
  if (/REAL|FLOA|DOUB/.test(t)) return 'float';
  if (/DATETIME|TIMESTAMP/.test(t)) return 'datetime';
  if (t.includes('DATE')) return 'date';
  if (t.includes('BOOL')) return 'boolean';
  return 'decimal';
}

/** A PostgreSQL `format_type` name → its kind. */
function postgresKind(declared: string): ColumnKind {
  const t = declared.toLowerCase();
  if (/^(smallint|integer|bigint)\b/.test(t)) return 'integer';
  if (/^numeric\b/.test(t)) return 'decimal';
  if (/^(real|double precision)\b/.test(t)) return 'float';
  if (/^timestamp\b/.test(t)) return 'datetime';
  if (t === 'date') return 'date';
  if (t === 'boolean') return 'boolean';
  if (t === 'bytea') return 'binary';
  if (/^(text|character varying|character|"char"|citext)\b/.test(t)) return 'text';
  return 'other';
}

function columnsOf(rows: ReadonlyArray<Record<string, unknown>>, kind: (declared: string) => ColumnKind): Map<string, DescribedColumn> {
  return new Map(rows.map((r) => [String(r.name), { name: String(r.name), type: String(r.type ?? ''), kind: kind(String(r.type ?? '')) }]));
}

const what = 'highwater check';

class SqliteDescriber implements EntityDescriber {
  readonly entityWord = 'table';
  constructor(private readonly db: SqlDatabase) {}

  async connect(): Promise<void> {
    await this.db.query('SELECT 1', [], 'open the database');
  }

  /** `schema.table` or `table` as pragma arguments. */
  private parts(entity: string): [string, string] {
    const [a, b] = entity.split('.');
    return b === undefined ? ['main', a] : [a, b];
  }

  async describe(entity: string): Promise<EntityDescription | undefined> {
    const [schema, table] = this.parts(entity);
    const columns = await this.db.query('SELECT name, type, pk FROM pragma_table_info(?, ?) ORDER BY cid', [table, schema], `read the columns of "${entity}"`);
    if (columns.length === 0) return undefined;
    const primary = columns.filter((c) => Number(c.pk) > 0).sort((x, y) => Number(x.pk) - Number(y.pk)).map((c) => String(c.name));
    const uniqueKeys: string[][] = primary.length > 0 ? [primary] : [];
    const indexes = await this.db.query('SELECT name FROM pragma_index_list(?, ?) WHERE "unique" = 1 AND partial = 0', [table, schema], `read the indexes of "${entity}"`);
    for (const index of indexes) {
      const parts = await this.db.query('SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno', [String(index.name), schema], `read the index ${String(index.name)}`);
      // An index on an expression has a NULL name for that part: no ON CONFLICT on columns uses it.
      if (parts.every((p) => p.name !== null)) uniqueKeys.push(parts.map((p) => String(p.name)));
    }
    return { columns: columnsOf(columns, sqliteKind), uniqueKeys };
  }

  async sample(entity: string, column: string): Promise<unknown> {
    const sql = `SELECT ${quoteIdentifier(column, what)} AS v FROM ${quoteEntity(entity, this.db.dialect, what)} WHERE ${quoteIdentifier(column, what)} IS NOT NULL LIMIT 1`;
    const [row] = await this.db.query(sql, [], `read a value of "${column}" in "${entity}"`);
    return row?.v;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

const PG_COLUMNS =
  'SELECT a.attname AS "name", format_type(a.atttypid, a.atttypmod) AS "type" FROM pg_catalog.pg_attribute a ' +
  'WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum';
const PG_UNIQUE =
  'SELECT array_agg(a.attname::text ORDER BY k.ord) AS "columns" FROM pg_catalog.pg_index i ' +
  'CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ' +
  'JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ' +
  'WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL GROUP BY i.indexrelid';

/** Every PostgreSQL table's system column `xmin`: a job tracks changes by it (postgres-xmin.ts). */
const XMIN_TRACKERS: ReadonlyMap<string, DescribedColumn> = new Map([[XMIN_FIELD, { name: XMIN_FIELD, type: 'xid (system column)', kind: 'integer' }]]);

class PostgresDescriber implements EntityDescriber {
  readonly entityWord = 'table';
  constructor(private readonly db: SqlDatabase) {}

  async connect(): Promise<void> {
    await this.db.query('SELECT 1', [], 'connect');
  }

  async describe(entity: string): Promise<EntityDescription | undefined> {
    const name = quoteEntity(entity, this.db.dialect, what);
    const [found] = await this.db.query('SELECT to_regclass($1)::text AS "r"', [name], `look up the table "${entity}"`);
    if (!found || found.r === null) return undefined;
    const columns = await this.db.query(PG_COLUMNS, [name], `read the columns of "${entity}"`);
    const unique = await this.db.query(PG_UNIQUE, [name], `read the unique indexes of "${entity}"`);
    return { columns: columnsOf(columns, postgresKind), uniqueKeys: unique.map((r) => r.columns as string[]), trackers: XMIN_TRACKERS };
  }

  async sample(entity: string, column: string): Promise<unknown> {
    const sql = `SELECT ${quoteIdentifier(column, what)}::text AS v FROM ${quoteEntity(entity, this.db.dialect, what)} WHERE ${quoteIdentifier(column, what)} IS NOT NULL LIMIT 1`;
    const [row] = await this.db.query(sql, [], `read a value of "${column}" in "${entity}"`);
    return row?.v;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Loaded on first use by connectors/describers.ts (`require`, out of knip's sight). @public */
export const openSqliteDescriber: DescriberFactory = (ctx) => new SqliteDescriber(openSqlite(ctx));
export const openPostgresDescriber: DescriberFactory = (ctx) => new PostgresDescriber(openPostgres(ctx));
