/**
 * The multi-row statements of a PostgreSQL batch. Every statement binds one array per column
 * (`$1::int[]` the item's position, then `$n::text[]`), so the parameter count stays fixed however
 * many rows a group has (PostgreSQL allows 65,535). Values travel as text and are cast to the
 * column's type from the catalog (`format_type`, see `postgres-columns.ts`) inside the statement:
 * an unconvertible value fails there, as a data error (22xxx) of the group, which the caller
 * bisects. The typed rows sit in a CTE `u` with the item position `"__hw_i"`; results come back
 * with that position (INSERT's RETURNING cannot see `u`, so its rows are joined back by key).
 */

/** The columns a group of items writes, with what the statements need. Names are validated identifiers. */
export interface PgBatchShape {
  /** The quoted table, e.g. `"sales"."order"`. */
  readonly entity: string;
  readonly keys: readonly string[];
  /** Every column written, keys included, in the records' order. */
  readonly columns: readonly string[];
  /** Column → SQL type as `format_type` spells it (safe to append after `::`). */
  readonly types: ReadonlyMap<string, string>;
  /** Columns returned per written row (response fields). */
  readonly returning: readonly string[];
}

/** Position of an item in the statement's parameter arrays. */
export const POSITION = '__hw_i';
/** The version column's value in {@link lockStatement}'s rows. */
export const VERSION = '__hw_v';

const q = (name: string) => `"${name}"`;

/** Parameters for {@link rowsCte} over `names`: positions, then one text array per column. */
export function rowsParams(records: ReadonlyArray<Record<string, unknown>>, names: readonly string[], bind: (value: unknown) => unknown): unknown[] {
  const params: unknown[] = [records.map((_, i) => i)];
  for (const name of names) params.push(records.map((record) => bind(record[name])));
  return params;
}

/** `WITH u AS (…)`: the typed rows of `names` from the arrays of {@link rowsParams}. */
function rowsCte(shape: PgBatchShape, names: readonly string[]): string {
  const args = ['$1::int[]', ...names.map((_, i) => `$${i + 2}::text[]`)].join(', ');
  const typed = [`x.${q(POSITION)}`, ...names.map((n) => `x.${q(n)}::${typeOf(shape, n)} AS ${q(n)}`)].join(', ');
  return `WITH u AS (SELECT ${typed} FROM unnest(${args}) AS x(${[POSITION, ...names].map(q).join(', ')}))`;
}

function typeOf(shape: PgBatchShape, name: string): string {
  const type = shape.types.get(name);
  if (!type) throw new Error(`no column type for "${name}"`); // callers check the columns first
  return type;
}

const keyJoin = (shape: PgBatchShape, left: string, right: string) => shape.keys.map((k) => `${left}.${q(k)} = ${right}.${q(k)}`).join(' AND ');
const returned = (shape: PgBatchShape, from: string) => shape.returning.map((f) => `, ${from}.${q(f)} AS ${q(f)}`).join('');
/** Columns an upsert sets; a row of keys only sets its keys to themselves, so that RETURNING still sees it. */
const setColumns = (shape: PgBatchShape) => {
  const nonKeys = shape.columns.filter((c) => !shape.keys.includes(c));
  return nonKeys.length > 0 ? nonKeys : shape.keys;
};

/** UPDATE of the rows that exist; returns position and response fields of each. Binds `columns`. */
export function updateStatement(shape: PgBatchShape): string {
  const set = setColumns(shape).map((c) => `${q(c)} = u.${q(c)}`).join(', ');
  return `${rowsCte(shape, shape.columns)} UPDATE ${shape.entity} AS t SET ${set} FROM u WHERE ${keyJoin(shape, 't', 'u')} RETURNING u.${q(POSITION)} AS ${q(POSITION)}${returned(shape, 't')}`;
}

/**
 * INSERT of rows (in key order, so that concurrent groups take key locks in one order);
 * `update`: `ON CONFLICT DO UPDATE` (a row inserted meanwhile is updated); `skip`: `DO NOTHING`
 * (the caller goes through the locked path for the rows not returned). Binds `columns`.
 */
export function insertStatement(shape: PgBatchShape, onConflict: 'update' | 'skip'): string {
  const columns = shape.columns.map(q).join(', ');
  const conflict = onConflict === 'skip' ? 'DO NOTHING' : `DO UPDATE SET ${setColumns(shape).map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')}`;
  const keys = shape.keys.map((k, i) => `t.${q(k)} AS "__hw_k${i}"`).join(', ');
  const back = shape.keys.map((k, i) => `ins."__hw_k${i}" = u.${q(k)}`).join(' AND ');
  return (
    `${rowsCte(shape, shape.columns)}, ins AS (INSERT INTO ${shape.entity} AS t (${columns}) ` +
    `SELECT ${shape.columns.map((c) => `u.${q(c)}`).join(', ')} FROM u ORDER BY ${shape.keys.map((k) => `u.${q(k)}`).join(', ')} ` +
    `ON CONFLICT (${shape.keys.map(q).join(', ')}) ${conflict} RETURNING ${keys}${returned(shape, 't')}) ` +
    `SELECT u.${q(POSITION)} AS ${q(POSITION)}${returned(shape, 'ins')} FROM ins JOIN u ON ${back}`
  );
}

/** Locks the existing rows of the keys (in key order) and reads their versions. Binds `keys`. */
export function lockStatement(shape: PgBatchShape, versionColumn: string): string {
  return (
    `${rowsCte(shape, shape.keys)} SELECT u.${q(POSITION)} AS ${q(POSITION)}, t.${q(versionColumn)} AS ${q(VERSION)} ` +
    `FROM ${shape.entity} AS t JOIN u ON ${keyJoin(shape, 't', 'u')} ORDER BY ${shape.keys.map((k) => `t.${q(k)}`).join(', ')} FOR UPDATE OF t`
  );
}

/** Deletes the rows of the keys (missing ones are no error). Binds `keys`. */
export function deleteStatement(shape: PgBatchShape): string {
  return `${rowsCte(shape, shape.keys)} DELETE FROM ${shape.entity} AS t USING u WHERE ${keyJoin(shape, 't', 'u')}`;
}
