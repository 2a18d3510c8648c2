import type { SqlDatabase } from './dialect';

/** One column of a MariaDB / MySQL table as the writer needs it. */
export interface MysqlColumn {
  /** `DATA_TYPE`, lower case: `int`, `decimal`, `datetime`, `varchar`, … */
  readonly dataType: string;
  /** `COLUMN_TYPE`, lower case, with its modifiers: `bigint(20) unsigned`, `decimal(65,30)`, `datetime(6)`. */
  readonly columnType: string;
  /** Fraction digits of a DATETIME / TIMESTAMP / TIME column (0 to 6). */
  readonly fractionDigits: number;
}

/** Catalog query of one table's columns; the schema defaults to the connection's database. */
const COLUMNS_SQL =
  'SELECT COLUMN_NAME AS "name", LOWER(DATA_TYPE) AS "dataType", LOWER(COLUMN_TYPE) AS "columnType", DATETIME_PRECISION AS "fsp" ' +
  'FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?';

/** Unique column sets (primary key, unique indexes on whole columns) of one table. */
const UNIQUE_SQL =
  'SELECT INDEX_NAME AS "index", COLUMN_NAME AS "column", SUB_PART AS "prefix" FROM information_schema.STATISTICS ' +
  'WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX';

/** `"schema"."table"` or `"table"` (validated identifiers) → its parts, unquoted. */
export function entityParts(quotedEntity: string): { schema: string | null; table: string } {
  const parts = quotedEntity.split('.').map((p) => p.replace(/^"|"$/g, ''));
  return parts.length === 2 ? { schema: parts[0], table: parts[1] } : { schema: null, table: parts[0] };
}

/**
 * Column types per table, read once from `information_schema.COLUMNS` (the writer checks and
 * converts values by them). A table altered later is read again when a batch names a column the
 * cached entry lacks. A table with no columns does not exist: the caller reports it.
 */
export class MysqlColumnTypes {
  private readonly tables = new Map<string, Promise<ReadonlyMap<string, MysqlColumn>>>();
  private readonly unique = new Map<string, Promise<boolean>>();

  /**
   * Whether `keys` (in any order) are the primary key or a unique index on whole columns of
   * `entity`: the writer finds rows by them, and only then is a key's row one row, and the gap a
   * missing key's lock covers its own. Kept once true; a false answer is asked again next time.
   */
  async isUniqueKey(db: SqlDatabase, entity: string, keys: readonly string[]): Promise<boolean> {
    const id = `${entity}\u0000${[...keys].sort().join('\u0001')}`;
    let entry = this.unique.get(id);
    if (!entry) {
      const { schema, table } = entityParts(entity);
      const wanted = [...keys].sort().join('\u0001');
      entry = db.query(UNIQUE_SQL, [schema, table], `read the unique indexes of ${entity}`).then((rows) => {
        const indexes = new Map<string, string[] | null>();
        for (const row of rows) {
          const name = String(row.index);
          const columns = indexes.get(name) ?? [];
          indexes.set(name, columns === null || row.column === null || row.prefix !== null ? null : [...columns, String(row.column)]);
        }
        return [...indexes.values()].some((columns) => columns !== null && [...columns].sort().join('\u0001') === wanted);
      });
      const kept = entry;
      kept.then((found) => !found && this.unique.get(id) === kept && this.unique.delete(id), () => this.unique.get(id) === kept && this.unique.delete(id));
      this.unique.set(id, entry);
    }
    return entry;
  }

  /**
   * The columns of `entity` (a quoted table name), re-read once when `names` has a column the
   * cached entry lacks; empty when the table does not exist.
   * @throws what the database throws (classified).
   */
  async of(db: SqlDatabase, entity: string, names: Iterable<string>): Promise<ReadonlyMap<string, MysqlColumn>> {
    let columns = await this.read(db, entity, false);
    for (const name of names) {
      if (!columns.has(name)) {
        columns = await this.read(db, entity, true);
        break;
      }
    }
    return columns;
  }

  private read(db: SqlDatabase, entity: string, fresh: boolean): Promise<ReadonlyMap<string, MysqlColumn>> {
    let entry = fresh ? undefined : this.tables.get(entity);
    if (!entry) {
      const { schema, table } = entityParts(entity);
      entry = db.query(COLUMNS_SQL, [schema, table], `read the columns of ${entity}`).then(
        (rows) => new Map(rows.map((r) => [String(r.name), { dataType: String(r.dataType), columnType: String(r.columnType), fractionDigits: Number(r.fsp ?? 0) }])),
      );
      // A failed read, or a table not there yet, is not kept: the next batch asks again.
      const kept = entry;
      kept.then(
        (columns) => columns.size === 0 && this.tables.get(entity) === kept && this.tables.delete(entity),
        () => this.tables.get(entity) === kept && this.tables.delete(entity),
      );
      this.tables.set(entity, entry);
    }
    return entry;
  }
}
