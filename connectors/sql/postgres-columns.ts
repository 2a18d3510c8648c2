import type { SqlDatabase } from './dialect';

/** The catalog query: every live column of one table with its type as SQL spells it. */
const COLUMNS_SQL =
  'SELECT a.attname AS "name", format_type(a.atttypid, a.atttypmod) AS "type" FROM pg_catalog.pg_attribute a ' +
  'WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped';

/**
 * Column types per table, read once from `pg_attribute` (a batch casts its text arrays to them).
 * `format_type` gives the declared type with its modifiers (`numeric(10,2)`, `character
 * varying(20)`, `integer[]`, a quoted domain or enum name): a cast to it checks what an INSERT of
 * a typed parameter would. A table altered later is read again when a batch names a column the
 * cached entry lacks; a changed type shows as a data error until the target is reopened.
 */
export class PostgresColumnTypes {
  private readonly tables = new Map<string, Promise<ReadonlyMap<string, string>>>();

  /**
   * The column types of `entity` (a quoted table name), re-read once when `names` has a column the
   * cached entry lacks.
   * @throws ConfigError (classified by the database) when the table does not exist.
   */
  async of(db: SqlDatabase, entity: string, names: Iterable<string>): Promise<ReadonlyMap<string, string>> {
    let types = await this.read(db, entity, false);
    for (const name of names) {
      if (!types.has(name)) {
        types = await this.read(db, entity, true);
        break;
      }
    }
    return types;
  }

  private read(db: SqlDatabase, entity: string, fresh: boolean): Promise<ReadonlyMap<string, string>> {
    let entry = fresh ? undefined : this.tables.get(entity);
    if (!entry) {
      entry = db.query(COLUMNS_SQL, [entity], `read the columns of ${entity}`).then((rows) => new Map(rows.map((r) => [String(r.name), String(r.type)])));
      // A failed read (the table is missing, the server away) is not kept: the next batch asks again.
      const kept = entry;
      kept.catch(() => this.tables.get(entity) === kept && this.tables.delete(entity));
      this.tables.set(entity, entry);
    }
    return entry;
  }
}
