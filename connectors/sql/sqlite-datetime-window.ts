import { ConfigError } from '../../src/platform/errors';
import type { SqlDatabase } from './dialect';
import {
  canonicalToSqliteNumber, numericTimeKind, type NumericTimeKind, shiftDate, sqliteNumberToCanonical, sqliteTextToCanonical,
} from './sqlite-timestamps';

/**
 * The window of one run over a SQLite datetime watermark column that may hold any mix of the
 * text forms SQLite's date functions read (space or `T`, with or without `Z` or an offset, any
 * fraction), or numbers (julian days or unix seconds, SQLite's `auto` rule).
 *
 * Such text does not order as time (`…23:57:28` < `…T23:00:00Z`; offsets shift the clock), so
 * the SQL bounds are supersets that still use an index on the raw column — text from the
 * calendar day before the watermark on, numbers from 1 ms before it — and the connector keeps
 * exactly the rows whose canonical time lies in (`floor`, `ceiling`]. Rows are read in the raw
 * column's order (keyset on (column, key)), so each row is read once per run however its time is
 * written. The price: each run reads and drops the rows of up to one calendar day before the
 * watermark (plus the lookback); a column in one uniform UTC form drops few.
 */
export interface SqliteDatetimeWindow {
  /** Raw inclusive upper bound: the column's maximum as stored. */
  upper: unknown;
  /** Raw exclusive lower bound (superset), or undefined for a full read. */
  lower?: unknown;
  /** Canonical exclusive lower bound (the watermark minus the lookback), null for a full read. */
  floor: string | null;
  /** Canonical inclusive upper bound: the latest time in the column when the run began. */
  ceiling: string;
  /** How the column stores numbers, for numeric columns. */
  numeric?: NumericTimeKind;
}

/** Days of text read before the watermark's UTC day: an offset of up to ±24 h moves the written day by one. */
const TEXT_DAYS_BEFORE = 1;
/** Julian days within which rows are re-checked for the exact maximum: 3 ms, above julianday's resolution. */
const JULIAN_SLACK = 3 / 86_400_000;

/**
 * Opens the window, or returns undefined when the column holds no value.
 * @param floor the canonical lower bound (watermark minus lookback), null to read everything.
 * @throws ConfigError naming the column and the value when it mixes numbers and text, mixes
 *   julian days and unix seconds, or holds a value SQLite does not read as a date-time.
 */
export async function openSqliteDatetimeWindow(
  db: SqlDatabase, entity: string, column: string, floor: string | null, what: string,
): Promise<SqliteDatetimeWindow | undefined> {
  const [bounds] = await db.query(`SELECT min(${column}) AS "lo", max(${column}) AS "hi" FROM ${entity}`, [], `read the maximum of ${column} in ${entity}`);
  const { lo, hi } = bounds ?? {};
  if (hi === null || hi === undefined) return undefined;
  if (typeof lo !== typeof hi) {
    throw new ConfigError(`${what}: the column holds both numbers and text (e.g. ${JSON.stringify(lo)} and ${JSON.stringify(hi)}); a SQLite datetime watermark column must hold one or the other`);
  }
  if (typeof hi === 'number' && typeof lo === 'number') {
    const kind = numericTimeKind(hi, what);
    if (numericTimeKind(lo, what) !== kind) {
      throw new ConfigError(`${what}: the column holds both julian day numbers and unix seconds (e.g. ${lo} and ${hi}); use one of them`);
    }
    const ceiling = sqliteNumberToCanonical(hi, kind, what);
    return { upper: hi, floor, ceiling, numeric: kind, ...(floor === null ? {} : { lower: canonicalToSqliteNumber(floor, kind) }) };
  }
  if (typeof hi !== 'string') throw new ConfigError(`${what}: SQLite datetime watermarks must be text or numbers, found ${typeof hi}`);
  const ceiling = await exactTextMaximum(db, entity, column, hi, what);
  return { upper: hi, floor, ceiling, ...(floor === null ? {} : { lower: shiftDate(floor, -TEXT_DAYS_BEFORE) }) };
}

/**
 * The latest time among the text values: the candidates are values written on the two days
 * before the text maximum's day or later (an offset moves the written day by at most one), the
 * latest by `julianday` and those within its resolution; their exact canonical maximum wins.
 */
async function exactTextMaximum(db: SqlDatabase, entity: string, column: string, hi: string, what: string): Promise<string> {
  const from = shiftDate(sqliteTextToCanonical(hi, what), -2);
  const rows = await db.query(
    `SELECT ${column} AS "v" FROM ${entity} WHERE ${column} > ? AND julianday(${column}) >= ` +
      `(SELECT max(julianday(${column})) FROM ${entity} WHERE ${column} > ?) - ?`,
    [from, from, JULIAN_SLACK],
    `read the latest time of ${column} in ${entity}`,
  );
  let ceiling = sqliteTextToCanonical(hi, what);
  for (const row of rows) {
    const canonical = sqliteTextToCanonical(String(row.v), what);
    if (canonical > ceiling) ceiling = canonical;
  }
  return ceiling;
}

/**
 * The canonical time of a stored value, or null when it lies outside the window (the SQL bounds
 * are supersets) or at or after the settled horizon `before`.
 * @throws ConfigError naming the column and the value when SQLite would not read it as a time.
 */
export function inSqliteWindow(window: Pick<SqliteDatetimeWindow, 'floor' | 'ceiling' | 'numeric'> & { before?: string }, raw: unknown, what: string): string | null {
  let canonical: string;
  if (typeof raw === 'number' && window.numeric) {
    if (numericTimeKind(raw, what) !== window.numeric) {
      throw new ConfigError(`${what}: the column holds both julian day numbers and unix seconds (found ${raw} in a column of ${window.numeric === 'julian' ? 'julian days' : 'unix seconds'}); use one of them`);
    }
    canonical = sqliteNumberToCanonical(raw, window.numeric, what);
  }
  else if (typeof raw === 'string' && !window.numeric) canonical = sqliteTextToCanonical(raw, what);
  else throw new ConfigError(`${what}: the column holds both numbers and text (found ${JSON.stringify(raw)}); a SQLite datetime watermark column must hold one or the other`);
  if (window.floor !== null && canonical <= window.floor) return null;
  // At or after the settled horizon: its second is not over yet, the next run reads it.
  if (window.before !== undefined && canonical >= window.before) return null;
  return canonical > window.ceiling ? null : canonical;
}
