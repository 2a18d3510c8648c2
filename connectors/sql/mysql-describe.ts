import type { ColumnKind, DescriberFactory, EntityDescriber, EntityDescription } from '../base/entity-describer';
import { quoteEntity, quoteIdentifier, type SqlDatabase } from './dialect';
import { entityParts } from './mysql-columns';
import { openMysql } from './sql-connectors';

/**
 * Tables of a MariaDB / MySQL connection as `highwater check` reads them, from
 * `information_schema`: columns with their `COLUMN_TYPE`, and the unique column sets (primary
 * key and unique indexes on whole columns: a prefix or an expression index cannot tell rows
 * apart by the columns alone).
 */

/** A `COLUMN_TYPE` (lower case, with modifiers) → its kind; `tinyint(1)` is how MySQL spells BOOLEAN. */
function mysqlKind(declared: string): ColumnKind {
  const t = declared.toLowerCase();
  if (/^tinyint\(1\)/.test(t)) return 'boolean';
  if (/^(tinyint|smallint|mediumint|int|integer|bigint)\b/.test(t)) return 'integer';
  if (/^(decimal|numeric)\b/.test(t)) return 'decimal';
  if (/^(float|double|real)\b/.test(t)) return 'float';
  if (/^(datetime|timestamp)\b/.test(t)) return 'datetime';
  if (t === 'date') return 'date';
  if (/^(binary|varbinary|tinyblob|blob|mediumblob|longblob)\b/.test(t)) return 'binary';
  if (/^(char|varchar|tinytext|text|mediumtext|longtext|enum|set)\b/.test(t)) return 'text';
  return 'other';
}

const COLUMNS =
  'SELECT COLUMN_NAME AS "name", COLUMN_TYPE AS "type" FROM information_schema.COLUMNS ' +
  'WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION';
const UNIQUE =
  'SELECT INDEX_NAME AS "index", COLUMN_NAME AS "column", SUB_PART AS "prefix" FROM information_schema.STATISTICS ' +
  'WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX';

const what = 'highwater check';

class MysqlDescriber implements EntityDescriber {
  readonly entityWord = 'table';
  constructor(private readonly db: SqlDatabase) {}

  async connect(): Promise<void> {
    await this.db.query('SELECT 1', [], 'connect');
  }

  async describe(entity: string): Promise<EntityDescription | undefined> {
    const { schema, table } = entityParts(quoteEntity(entity, this.db.dialect, what));
    const columns = await this.db.query(COLUMNS, [schema, table], `read the columns of "${entity}"`);
    if (columns.length === 0) return undefined;
    const parts = await this.db.query(UNIQUE, [schema, table], `read the unique indexes of "${entity}"`);
    const indexes = new Map<string, { columns: string[]; whole: boolean }>();
    for (const part of parts) {
      const index = indexes.get(String(part.index)) ?? { columns: [], whole: true };
      if (part.column === null || part.prefix !== null) index.whole = false;
      else index.columns.push(String(part.column));
      indexes.set(String(part.index), index);
    }
    return {
      columns: new Map(columns.map((c) => [String(c.name), { name: String(c.name), type: String(c.type), kind: mysqlKind(String(c.type)) }])),
      uniqueKeys: [...indexes.values()].filter((i) => i.whole).map((i) => i.columns),
    };
  }

  async sample(entity: string, column: string): Promise<unknown> {
    const name = quoteIdentifier(column, what);
    const sql = `SELECT CAST(${name} AS CHAR) AS "v" FROM ${quoteEntity(entity, this.db.dialect, what)} WHERE ${name} IS NOT NULL LIMIT 1`;
    const [row] = await this.db.query(sql, [], `read a value of "${column}" in "${entity}"`);
    return row?.v;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Loaded on first use by connectors/describers.ts (`require`, out of knip's sight). @public */
export const openMysqlDescriber: DescriberFactory = (ctx) => new MysqlDescriber(openMysql(ctx));
