import { ConfigError } from '../../src/platform/errors';

/**
 * SQLite has no timestamp type; Highwater expects datetime watermark columns to hold ISO 8601
 * UTC text in ONE fixed format per column, e.g. `2026-01-02T03:04:05.123Z` (JS `toISOString`)
 * or `2026-01-02 03:04:05` (SQLite `CURRENT_TIMESTAMP`). Such text orders correctly as text, so
 * the column can be compared (and indexed) as stored; the watermark parameter is written in the
 * column's own format, read off a stored value (`sqliteDialect.watermarkParameter`). Mixed
 * formats in one column do not order correctly as text (e.g. `…:05Z` sorts after `…:05.1Z`):
 * the SQL source therefore reads SQLite datetime columns through `sqlite-datetime-window.ts`,
 * which uses the converters at the end of this file and accepts every form SQLite reads.
 */
export interface TextTimestampFormat {
  separator: 'T' | ' ';
  /** Whether the time has seconds. */
  seconds: boolean;
  fractionDigits: number;
  /** UTC designator as written: `Z`, `+00:00`, `+0000`, `+00` or none. */
  zone: string;
}

const STORED = /^\d{4}-\d{2}-\d{2}([T ])\d{2}:\d{2}(:\d{2})?(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const UTC_ZONES = new Set(['', 'Z', '+00:00', '+0000', '+00', '-00:00', '-0000', '-00']);
const CANONICAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/**
 * The format of a stored timestamp text.
 * @param what names the column in the error, e.g. `job "j": watermark field "modified"`.
 * @throws ConfigError when it is not ISO 8601 UTC text.
 */
export function inferTimestampFormat(sample: unknown, what: string): TextTimestampFormat {
  const match = typeof sample === 'string' ? STORED.exec(sample) : null;
  if (!match || !UTC_ZONES.has(match[4] ?? '')) {
    const shown = typeof sample === 'string' ? JSON.stringify(sample) : typeof sample;
    throw new ConfigError(
      `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found ${shown}`,
    );
  }
  return { separator: match[1] as 'T' | ' ', seconds: match[2] !== undefined, fractionDigits: (match[3] ?? '').length, zone: match[4] ?? '' };
}

/**
 * A canonical datetime (`yyyy-MM-ddTHH:mm:ss.fffffffZ`) in a stored format. Digits the format
 * does not have are cut off (towards the past), so as a lower bound it may re-read, never skip.
 */
export function formatTimestamp(canonical: string, format: TextTimestampFormat): string {
  const match = CANONICAL.exec(canonical);
  if (!match) throw new ConfigError(`${JSON.stringify(canonical)} is not a canonical datetime watermark`);
  const [, date, hoursMinutes, seconds, fraction = ''] = match;
  let text = `${date}${format.separator}${hoursMinutes}`;
  if (format.seconds) {
    text += `:${seconds}`;
    if (format.fractionDigits > 0) text += `.${fraction.slice(0, format.fractionDigits).padEnd(format.fractionDigits, '0')}`;
  }
  return text + format.zone;
}

/**
 * Every text form SQLite's date functions read, with a calendar date: `YYYY-MM-DD`, then
 * optionally `T` or a space, `HH:MM`, `:SS`, `.fraction` (any digits), then optionally `Z` or
 * `±HH:MM` (spaces before it allowed, as SQLite skips them).
 */
const SQLITE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(?:([zZ])|([+-])(\d{2}):(\d{2}))?$/;

/** Largest julian day number SQLite's `auto` modifier reads as a julian day (9999-12-31). */
const MAX_JULIAN_DAY = 5373484.499999;
/** Unix seconds SQLite's `auto` modifier accepts (0000-01-01 … 9999-12-31). */
const UNIX_RANGE = [-210866760000, 253402300799] as const;
const JULIAN_UNIX_EPOCH = 2440587.5;
const MS_PER_DAY = 86_400_000;

function refuse(what: string, raw: unknown, why?: string): ConfigError {
  const shown = typeof raw === 'string' ? JSON.stringify(raw) : String(raw);
  return new ConfigError(
    `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found ${shown}${why ? ` (${why})` : ''}`,
  );
}

/** `ms` since the epoch plus 100 ns ticks as a canonical datetime; undefined outside 0001–9999. */
function canonicalOf(wholeMs: number, ticks: string): string | undefined {
  const at = new Date(wholeMs);
  const year = at.getUTCFullYear();
  if (Number.isNaN(at.getTime()) || year < 1 || year > 9999) return undefined;
  return `${at.toISOString().slice(0, 23)}${ticks}Z`;
}

/**
 * The canonical datetime (`yyyy-MM-ddTHH:mm:ss.fffffffZ`, UTC) of a text value in any form
 * SQLite reads (offsets applied; fraction digits beyond 7 cut off, towards the past).
 * @throws ConfigError naming `what` and the value when SQLite would not read it as a date-time or
 *   its calendar date does not exist (SQLite would roll `02-30` over; a watermark must not guess).
 */
export function sqliteTextToCanonical(text: string, what: string): string {
  const m = SQLITE_TEXT.exec(text);
  if (!m) throw refuse(what, text);
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', , sign, oh, om] = m;
  const at = new Date(0);
  at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const written = `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  if (Number.isNaN(at.getTime()) || at.toISOString().slice(-24, -5).padStart(19, '0') !== written.padStart(19, '0')) {
    throw refuse(what, text, 'no such date or time');
  }
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const digits = fraction.padEnd(7, '0').slice(0, 7);
  const canonical = canonicalOf(at.getTime() - offsetMs + Number(digits.slice(0, 3)), digits.slice(3));
  if (canonical === undefined) throw refuse(what, text, 'year outside 0001–9999');
  return canonical;
}

/** How a numeric column holds times, by SQLite's `auto` rule: julian day numbers or unix seconds. */
export type NumericTimeKind = 'julian' | 'unix';

/** @throws ConfigError naming `what` and the value when SQLite's `auto` rule reads it as neither. */
export function numericTimeKind(value: number, what: string): NumericTimeKind {
  if (value >= 0 && value <= MAX_JULIAN_DAY) return 'julian';
  if (value >= UNIX_RANGE[0] && value <= UNIX_RANGE[1]) return 'unix';
  throw refuse(what, value, 'a number that is neither a julian day nor unix seconds; milliseconds are not read');
}

/** The canonical datetime of a julian day number (to the ms) or unix seconds (to the µs); never out of the numbers' order. */
export function sqliteNumberToCanonical(value: number, kind: NumericTimeKind, what: string): string {
  // A julian day double resolves ~40 µs: its digits below the millisecond are noise (SQLite's own
  // functions write whole milliseconds), so it is rounded to one. Unix seconds resolve below a
  // microsecond at today's values: rounded to one. Rounding keeps the order of the stored numbers.
  const us = kind === 'julian' ? Math.round((value - JULIAN_UNIX_EPOCH) * MS_PER_DAY) * 1000 : Math.round(value * 1_000_000);
  const whole = Math.floor(us / 1000);
  const ticks = String((us - whole * 1000) * 10).padStart(4, '0');
  const canonical = canonicalOf(whole, ticks);
  if (canonical === undefined) throw refuse(what, value, 'year outside 0001–9999');
  return canonical;
}

/**
 * A number of the column's kind at most `canonical` minus 1 ms: as an exclusive SQL lower bound it
 * keeps every later value (the connector drops the few at or before the watermark exactly).
 */
export function canonicalToSqliteNumber(canonical: string, kind: NumericTimeKind): number {
  const ms = Date.parse(`${canonical.slice(0, 23)}Z`) + Number(canonical.slice(23, 27)) / 10_000 - 1;
  return kind === 'julian' ? ms / MS_PER_DAY + JULIAN_UNIX_EPOCH : ms / 1000;
}

/** `YYYY-MM-DD` moved by whole days (UTC calendar). */
export function shiftDate(date: string, days: number): string {
  const at = new Date(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) + days * MS_PER_DAY);
  return at.toISOString().slice(0, 10);
}
