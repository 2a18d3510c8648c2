import { PermanentError } from '../../src/platform/errors';
import { decimalParts, INT64_MAX, INT64_MIN, integerOf, sameDecimal } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';
import type { SqlDialect, SqlRow } from './dialect';

/** How SQLite converts a value stored into a column, from its declared type (SQLite "type affinity" rules). */
export type SqliteAffinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

/** The affinity of a declared column type, by SQLite's rules (first match: INT, CHAR/CLOB/TEXT, BLOB or none, REAL/FLOA/DOUB, else NUMERIC). */
export function affinityOf(declared: string): SqliteAffinity {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text';
  if (type.includes('BLOB') || type.trim() === '') return 'blob';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'real';
  return 'numeric';
}

/**
 * The statement reading a table's declared column types; `entity` as configured (`name` or
 * `schema.name`, already validated by the caller's quoting).
 */
export function columnsQuery(entity: string): { sql: string; params: string[] } {
  const parts = entity.split('.');
  return parts.length === 2
    ? { sql: 'SELECT "name", "type" FROM pragma_table_info(?, ?)', params: [parts[1], parts[0]] }
    : { sql: 'SELECT "name", "type" FROM pragma_table_info(?)', params: [entity] };
}

/**
 * Column affinities per table, read once (see {@link columnsQuery}); a table altered later is
 * read again when a statement names a column the cached entry lacks.
 */
export class SqliteColumnAffinities {
  private readonly tables = new Map<string, ReadonlyMap<string, SqliteAffinity>>();

  /** The cached affinities of `entity` when they cover `names`; undefined when they must be read. */
  cached(entity: string, names: readonly string[]): ReadonlyMap<string, SqliteAffinity> | undefined {
    const known = this.tables.get(entity);
    if (!known) return undefined;
    for (let i = 0; i < names.length; i++) if (!known.has(names[i])) return undefined;
    return known;
  }

  /** Keeps the rows of {@link columnsQuery} for `entity`. */
  keep(entity: string, rows: readonly SqlRow[]): ReadonlyMap<string, SqliteAffinity> {
    const affinities = new Map(rows.map((r) => [String(r.name), affinityOf(String(r.type ?? ''))]));
    this.tables.set(entity, affinities);
    return affinities;
  }
}

/**
 * The record's values of `fields`, in order, as the driver binds them, each exactly as SQLite will
 * keep it. Text into an INTEGER, REAL or NUMERIC column is converted by SQLite itself: an integer
 * beyond 64 bits or a decimal with more digits than a double holds would be rounded there, so such a
 * value fails instead, naming the column. A fraction into a TEXT column goes as its shortest exact
 * text (SQLite's own conversion keeps 15 digits). Other values bind as the dialect binds them.
 * @param affinities by column; a column not in it (not in the table) binds as the dialect binds it.
 * @throws PermanentError naming the column when SQLite could not store a value exactly.
 */
export function bindExactFields(
  dialect: SqlDialect,
  fields: readonly string[],
  record: Record<string, JsonValue>,
  affinities: ReadonlyMap<string, SqliteAffinity>,
  entity: string,
): unknown[] {
  const values = new Array<unknown>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const value = record[fields[i]];
    if (typeof value === 'string') {
      const affinity = affinities.get(fields[i]);
      if (affinity === 'integer' || affinity === 'numeric' || affinity === 'real') {
        values[i] = numericText(value, affinity, fields[i], entity);
        continue;
      }
    } else if (typeof value === 'number' && !Number.isInteger(value) && affinities.get(fields[i]) === 'text') {
      // SQLite writes a REAL into a TEXT column with 15 digits (0.30000000000000004 → '0.3'): JS keeps them all.
      values[i] = String(value);
      continue;
    }
    values[i] = dialect.bindValue(value);
  }
  return values;
}

/** Numeric text for a numeric column: the exact integer (BigInt) or double SQLite stores, or a PermanentError. */
function numericText(text: string, affinity: SqliteAffinity, column: string, entity: string): unknown {
  const parts = decimalParts(text);
  if (!parts) return text; // not a number: SQLite keeps the text as it is
  const integer = integerOf(text);
  if (integer !== undefined && affinity !== 'real') {
    if (integer >= INT64_MIN && integer <= INT64_MAX) return integer;
    throw notExact(text, affinity, column, entity, 'beyond the 64-bit integer range');
  }
  const n = Number(text);
  if (!sameDecimal(text, n)) throw notExact(text, affinity, column, entity, 'more digits than an 8-byte float holds');
  return n;
}

function notExact(text: string, affinity: SqliteAffinity, column: string, entity: string, why: string): PermanentError {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return new PermanentError(
    `column "${column}" of ${entity}: ${shown} cannot be stored exactly in a column of ${affinity.toUpperCase()} affinity (${why}); ` +
      'SQLite would round it: declare the column TEXT to keep the exact digits',
  );
}
