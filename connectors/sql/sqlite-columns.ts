import { PermanentError } from '../../src/platform/errors';
import { decimalParts, INT64_MAX, INT64_MIN, integerOf, JSON_TEXT_TAG, sameDecimal, taggedOf } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';
import type { SqlDialect, SqlRow } from './dialect';

/** How SQLite converts a value stored into a column, from its declared type (SQLite "type affinity" rules). */
export type SqliteAffinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

/** The affinity of a declared column type, by SQLite's rules (first match: INT, CHAR/CLOB/TEXT, BLOB or none, REAL/FLOA/DOUB, else NUMERIC). */
function affinityOf(declared: string): SqliteAffinity {
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
 * text (SQLite's own conversion keeps 15 digits). A JSON document kept as its exact text
 * (`{"$jsonText": …}`; SQLite has no JSON type) goes as that text into a TEXT column, a column
 * without a type, or a NUMERIC one (`doc JSON` has NUMERIC affinity) unless the document is a bare
 * number SQLite would convert; an INTEGER or REAL column refuses it. Other values bind as the
 * dialect binds them.
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
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const tagged = taggedOf(value);
      if (tagged?.tag === JSON_TEXT_TAG) checkJsonText(tagged.text, affinities.get(fields[i]), fields[i], entity);
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

/** Refuses a JSON document's text for a column that would convert it (see {@link bindExactFields}). */
function checkJsonText(text: string, affinity: SqliteAffinity | undefined, column: string, entity: string): void {
  if (affinity === undefined || affinity === 'text' || affinity === 'blob') return;
  if (affinity === 'numeric' && decimalParts(text) === undefined) return;
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  throw new PermanentError(
    `column "${column}" of ${entity}: ${shown} cannot be stored exactly in a column of ${affinity.toUpperCase()} affinity ` +
      '(a JSON document with numbers beyond a double is written exactly only as text): declare the column TEXT',
  );
}

function notExact(text: string, affinity: SqliteAffinity, column: string, entity: string, why: string): PermanentError {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return new PermanentError(
    `column "${column}" of ${entity}: ${shown} cannot be stored exactly in a column of ${affinity.toUpperCase()} affinity (${why}); ` +
      'SQLite would round it: declare the column TEXT to keep the exact digits',
  );
}
