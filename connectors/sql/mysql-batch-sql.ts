import type { JsonValue } from '../../src/model/queue-message';
import type { MysqlColumn } from './mysql-columns';
import { bindForColumn } from './mysql-exact';

/**
 * The statements of a MariaDB / MySQL batch (mysql-batch.ts), with their `?` values in order.
 * Rows are named by their key (`k = ?`, an index lookup whatever the key's type or collation, as
 * the server compares it), never matched in JS: a case-insensitive collation or a DECIMAL key
 * would make JS and the server disagree. Results that must come back per item carry the item's
 * position as a literal `"__hw_i"` in a `UNION ALL` of one `SELECT` per item.
 */

/** The columns a group of items writes, with what the statements need. Names are validated identifiers. */
export interface MysqlBatchShape {
  /** The quoted table, e.g. `"shop"."orders"`. */
  readonly entity: string;
  readonly keys: readonly string[];
  /** Every column written, keys included, in the records' order. */
  readonly columns: readonly string[];
  readonly types: ReadonlyMap<string, MysqlColumn>;
  /** Columns returned per written row (response fields). */
  readonly returning: readonly string[];
}

/** Position of an item in a statement's `UNION ALL`. */
export const POSITION = '__hw_i';
/** The version column's value in {@link lockStatement}'s rows. */
export const VERSION = '__hw_v';

export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

type Row = Record<string, JsonValue>;
const q = (name: string) => `"${name}"`;

function bind(shape: MysqlBatchShape, name: string, value: JsonValue | undefined, params: unknown[]): string {
  params.push(bindForColumn(value, shape.types.get(name)));
  return '?';
}

/** `"k1" = ? AND "k2" = ?` for one record's key. */
function keyCondition(shape: MysqlBatchShape, record: Row, params: unknown[], alias = ''): string {
  return shape.keys.map((k) => `${alias}${q(k)} = ${bind(shape, k, record[k], params)}`).join(' AND ');
}

/** `(cond) OR (cond)`: the rows of every record (equalities on one index: a range read). */
function anyKey(shape: MysqlBatchShape, records: readonly Row[], params: unknown[]): string {
  return records.map((r) => `(${keyCondition(shape, r, params)})`).join(' OR ');
}

/**
 * Locks the existing rows of the records' keys and reads their versions: per record
 * `(SELECT i, version FROM t WHERE key = ? FOR UPDATE)`. Run in READ COMMITTED: a key without a
 * row locks nothing (no gap lock), so another writer may insert it before this transaction does.
 * With `lock` false a plain read of the committed rows, locking nothing.
 */
export function lockStatement(shape: MysqlBatchShape, records: readonly Row[], versionColumn: string | undefined, lock = true): Statement {
  const params: unknown[] = [];
  const version = versionColumn ? `, t.${q(versionColumn)} AS ${q(VERSION)}` : '';
  const forUpdate = lock ? ' FOR UPDATE' : '';
  const parts = records.map((r, i) => `(SELECT ${i} AS ${q(POSITION)}${version} FROM ${shape.entity} t WHERE ${keyCondition(shape, r, params, 't.')}${forUpdate})`);
  return { sql: parts.join(' UNION ALL '), params };
}

/** The non-key columns of the shape (what an UPDATE sets). */
export const setColumns = (shape: MysqlBatchShape) => shape.columns.filter((c) => !shape.keys.includes(c));

/** One UPDATE of existing rows: `SET c = CASE WHEN key = ? THEN ? … END … WHERE key = ? OR …`. */
export function updateStatement(shape: MysqlBatchShape, records: readonly Row[]): Statement {
  const params: unknown[] = [];
  const set = setColumns(shape).map((c) => {
    const cases = records.map((r) => `WHEN ${keyCondition(shape, r, params)} THEN ${bind(shape, c, r[c], params)}`).join(' ');
    return `${q(c)} = CASE ${cases} ELSE ${q(c)} END`;
  });
  const where = anyKey(shape, records, params);
  return { sql: `UPDATE ${shape.entity} SET ${set.join(', ')} WHERE ${where}`, params };
}

/** One multi-row INSERT of rows that did not exist when locked (a duplicate key fails the whole statement). */
export function insertStatement(shape: MysqlBatchShape, records: readonly Row[]): Statement {
  const params: unknown[] = [];
  const rows = records.map((r) => `(${shape.columns.map((c) => bind(shape, c, r[c], params)).join(', ')})`);
  return { sql: `INSERT INTO ${shape.entity} (${shape.columns.map(q).join(', ')}) VALUES ${rows.join(', ')}`, params };
}

/** Deletes the rows of the records' keys (missing ones are no error). */
export function deleteStatement(shape: MysqlBatchShape, records: readonly Row[]): Statement {
  const params: unknown[] = [];
  return { sql: `DELETE FROM ${shape.entity} WHERE ${anyKey(shape, records, params)}`, params };
}

/** The response fields of the written rows, per record position (inside the writing transaction). */
export function returningStatement(shape: MysqlBatchShape, records: readonly Row[]): Statement {
  const params: unknown[] = [];
  const fields = shape.returning.map((f) => `, t.${q(f)} AS ${q(f)}`).join('');
  const parts = records.map((r, i) => `(SELECT ${i} AS ${q(POSITION)}${fields} FROM ${shape.entity} t WHERE ${keyCondition(shape, r, params, 't.')})`);
  return { sql: parts.join(' UNION ALL '), params };
}
