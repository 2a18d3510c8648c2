import { DateTime } from 'luxon';
import { ConfigError, PermanentError } from '../platform/errors';

/**
 * Watermark values: canonical forms, ordering, and "advance, never backwards".
 *
 * Canonical forms (stable: they are stored, carried as `changeTracker`, and compared):
 * - `datetime`: ISO 8601 UTC with exactly 7 fraction digits (100 ns, .NET round-trip "o"),
 *   e.g. `2026-01-02T03:04:05.1234567Z`. Years 0001–9999. Offsets are normalised to UTC; a
 *   string without offset is UTC. Fraction digits beyond 7 are truncated (towards the past, so a
 *   watermark may re-read a row, never skip one). JS numbers (epoch) are rejected: seconds vs
 *   milliseconds is ambiguous, and a numeric tracker on a datetime job is a misconfiguration.
 * - `date`: `yyyy-MM-dd`. A string with a time keeps its written calendar date (its offset is
 *   ignored); a JS `Date` gives its UTC calendar date.
 * - `number`: exact decimal, no exponent, no leading zeros, no trailing fraction zeros (`-0` → `0`).
 *   Integers of any size (bigint, rowversion bytes, `0x…` hex) and decimals are compared exactly;
 *   JS numbers beyond `Number.MAX_SAFE_INTEGER` are rejected (precision was already lost).
 * - `string`: the value itself, ordered ordinally (UTF-16 code units, like .NET `Ordinal`).
 * An unknown type keeps values as they are (Date → ISO string) and orders them ordinally.
 */
export type WatermarkType = 'datetime' | 'date' | 'number' | 'string';

const TYPE_ALIASES: Record<string, WatermarkType> = {
  datetime: 'datetime', datetime2: 'datetime', datetimeoffset: 'datetime', timestamp: 'datetime', timestamptz: 'datetime',
  date: 'date',
  number: 'number', int: 'number', integer: 'number', bigint: 'number', long: 'number', decimal: 'number',
  numeric: 'number', rowversion: 'number',
  string: 'string', text: 'string', varchar: 'string', nvarchar: 'string',
};

const DEFAULTS: Record<WatermarkType, string> = {
  datetime: '0001-01-01T00:00:00.0000000Z',
  date: '0001-01-01',
  number: '0',
  string: '',
};

const FRACTION_DIGITS = 7;
/** Date, optional time (T or space) up to seconds, optional fraction, then offset/zone (luxon parses those). */
const DATETIME_SHAPE = /^(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}){1,2})?)(?:[.,](\d+))?(.*)$/;
const DECIMAL_SHAPE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_EXPONENT = 1000;

/** Trimmed, case-insensitive, with SQL-ish aliases (`timestamp` → datetime, `rowversion` → number). */
export function parseWatermarkType(type: string): WatermarkType | undefined {
  const key = type.trim().toLowerCase();
  return Object.hasOwn(TYPE_ALIASES, key) ? TYPE_ALIASES[key] : undefined; // not `constructor` & co.
}

/** Why a raw value has no canonical form (internal; the public entry points add context). */
class InvalidValue extends Error {}

export class WatermarkValue {
  private current: string | null;

  private constructor(readonly type: WatermarkType | undefined, value: string | null) {
    this.current = value;
  }

  /**
   * The watermark of a job from its configured type and stored value. Nothing stored (null,
   * undefined, blank) → the type's default. An unknown type keeps the stored value and calls `warn`.
   * @param jobName names the job in the warning and the error (optional).
   * @throws ConfigError when the stored value is not valid for a known type (fix or clear it).
   */
  static initialize(type: string, stored: string | null | undefined, warn?: (message: string) => void, jobName?: string): WatermarkValue {
    const prefix = jobName === undefined ? '' : `job "${jobName}": `;
    const parsed = parseWatermarkType(type);
    if (parsed === undefined) {
      warn?.(`${prefix}unknown watermark type "${type}"; keeping the stored value and comparing ordinally`);
      return new WatermarkValue(undefined, stored ?? null);
    }
    if (stored === null || stored === undefined || stored.trim() === '') return new WatermarkValue(parsed, DEFAULTS[parsed]);
    try {
      return new WatermarkValue(parsed, toCanonical(parsed, stored));
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new ConfigError(
        `${prefix}stored watermark ${describe(stored)} is not a valid ${parsed}: ${err.message}; fix it or clear the Watermark column to rerun from the start`,
        { cause: err },
      );
    }
  }

  /** Canonical string (null only for an unknown type with nothing stored). */
  get value(): string | null {
    return this.current;
  }

  /**
   * Moves to `changeTracker` when it is later by the type's order; never backwards.
   * @returns whether the watermark moved.
   * @throws PermanentError when the change tracker has no value of this type.
   */
  advance(changeTracker: unknown): boolean {
    let next: string;
    try {
      next = this.type === undefined ? toText(changeTracker) : toCanonical(this.type, changeTracker);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new PermanentError(`change tracker ${describe(changeTracker)} is not a valid ${this.type ?? 'watermark value'}: ${err.message}`, { cause: err });
    }
    const later = this.current === null || (this.type === undefined ? ordinal(next, this.current) : compareCanonical(this.type, next, this.current)) > 0;
    if (later) this.current = next;
    return later;
  }

  /**
   * Canonical string of a raw source value: Date, ISO string with any offset, number, bigint,
   * numeric string, or the bytes of a SQL Server rowversion (big-endian) for `number`.
   * @throws PermanentError when `raw` has no value of this type.
   */
  static canonicalize(type: WatermarkType, raw: unknown): string {
    try {
      return toCanonical(type, raw);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new PermanentError(`${describe(raw)} is not a valid ${type} watermark value: ${err.message}`, { cause: err });
    }
  }

  /** Orders two values of a type (<0, 0, >0); accepts every form `canonicalize` accepts. */
  static compare(type: WatermarkType, a: string, b: string): number {
    return compareCanonical(type, WatermarkValue.canonicalize(type, a), WatermarkValue.canonicalize(type, b));
  }
}

function toCanonical(type: WatermarkType, raw: unknown): string {
  switch (type) {
    case 'datetime': return canonicalDateTime(raw);
    case 'date': return canonicalDate(raw);
    case 'number': return canonicalNumber(raw);
    case 'string':
      if (raw instanceof Date) throw new InvalidValue('expected a string or a number');
      return toText(raw, 'expected a string or a number');
  }
}

function compareCanonical(type: WatermarkType, a: string, b: string): number {
  // Fixed-width datetime and date forms order correctly as strings.
  if (type !== 'number') return ordinal(a, b);
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  const diff = x.digits * 10n ** BigInt(scale - x.scale) - y.digits * 10n ** BigInt(scale - y.scale);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

const ordinal = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** An ISO/SQL date-time string as luxon reads it (written offset kept) plus its fraction digits. */
function parseDateTimeText(raw: string): { at: DateTime; fraction: string } {
  const text = raw.trim();
  const match = DATETIME_SHAPE.exec(text);
  if (!match) throw new InvalidValue('expected ISO 8601 like 2026-01-02T03:04:05.1234567Z');
  const [, head, fraction = '', tail] = match;
  if (fraction !== '' && head.length < 19) throw new InvalidValue('a fraction needs seconds');
  // Luxon stops at milliseconds: it reads the value without its fraction, which is kept as digits.
  const withoutFraction = head + tail;
  const options = { zone: 'utc', setZone: true };
  const at = text[10] === ' ' ? DateTime.fromSQL(withoutFraction, options) : DateTime.fromISO(withoutFraction, options);
  if (!at.isValid) throw new InvalidValue(at.invalidExplanation ?? at.invalidReason ?? 'not a date-time');
  return { at, fraction };
}

function checkYear(at: DateTime): DateTime {
  if (at.year < 1 || at.year > 9999) throw new InvalidValue('year outside 0001–9999');
  return at;
}

/** `yyyy-MM-ddTHH:mm:ss[.fraction]Z`: already UTC, so the canonical form needs no luxon. */
const UTC_DATETIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/;

/**
 * The canonical form of a UTC ISO string or a Date without luxon (hot path: every detected
 * change is canonicalized, and its watermark advanced, once). Undefined when the value needs the
 * general path (offsets, SQL form, out-of-range fields: luxon also gives the error message).
 */
function fastCanonicalDateTime(raw: unknown): string | undefined {
  if (raw instanceof Date) {
    const year = raw.getUTCFullYear();
    if (!(year >= 1 && year <= 9999)) return undefined;
    return `${raw.toISOString().slice(0, 23)}0000Z`;
  }
  if (typeof raw !== 'string') return undefined;
  const match = UTC_DATETIME.exec(raw);
  if (!match) return undefined;
  const [, head, fraction = ''] = match;
  if (head < '0001') return undefined;
  // Date.parse rolls 24:00 or Feb 30 over (or rejects them): a round trip proves the fields valid.
  const ms = Date.parse(`${head}Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== head) return undefined;
  return `${head}.${fraction.slice(0, FRACTION_DIGITS).padEnd(FRACTION_DIGITS, '0')}Z`;
}

function canonicalDateTime(raw: unknown): string {
  const fast = fastCanonicalDateTime(raw);
  if (fast !== undefined) return fast;
  let at: DateTime;
  let fraction: string;
  if (raw instanceof Date) {
    if (Number.isNaN(raw.getTime())) throw new InvalidValue('invalid Date');
    at = DateTime.fromJSDate(raw, { zone: 'utc' });
    fraction = String(raw.getUTCMilliseconds()).padStart(3, '0');
  } else if (typeof raw === 'string') {
    ({ at, fraction } = parseDateTimeText(raw));
  } else {
    throw new InvalidValue('expected an ISO 8601 string or a Date');
  }
  const utc = checkYear(at.toUTC());
  return `${utc.toFormat("yyyy-MM-dd'T'HH:mm:ss")}.${fraction.slice(0, FRACTION_DIGITS).padEnd(FRACTION_DIGITS, '0')}Z`;
}

function canonicalDate(raw: unknown): string {
  if (raw instanceof Date) {
    if (Number.isNaN(raw.getTime())) throw new InvalidValue('invalid Date');
    return checkYear(DateTime.fromJSDate(raw, { zone: 'utc' })).toFormat('yyyy-MM-dd');
  }
  if (typeof raw !== 'string') throw new InvalidValue('expected a yyyy-MM-dd string or a Date');
  return checkYear(parseDateTimeText(raw).at).toFormat('yyyy-MM-dd');
}

function canonicalNumber(raw: unknown): string {
  if (typeof raw === 'bigint') return raw.toString();
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) throw new InvalidValue('not a finite number');
    if (Number.isInteger(raw) && !Number.isSafeInteger(raw)) {
      throw new InvalidValue('beyond Number.MAX_SAFE_INTEGER, precision is lost; read the column as a string or bigint');
    }
    return normalizeDecimal(String(raw));
  }
  if (raw instanceof Uint8Array) {
    if (raw.length === 0) throw new InvalidValue('empty byte array');
    return raw.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n).toString();
  }
  if (typeof raw !== 'string') throw new InvalidValue('expected a number, bigint, numeric string or rowversion bytes');
  const text = raw.trim();
  if (/^0x[0-9a-f]+$/i.test(text)) return BigInt(text).toString();
  return normalizeDecimal(text);
}

/** Exact decimal text without exponent, leading zeros or trailing fraction zeros. */
function normalizeDecimal(text: string): string {
  const match = DECIMAL_SHAPE.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new InvalidValue('not a decimal number');
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const exp = Number(exponent);
  if (Math.abs(exp) > MAX_EXPONENT) throw new InvalidValue(`exponent beyond ±${MAX_EXPONENT}`);
  let digits = whole + fraction;
  let point = whole.length + exp; // position of the decimal point within `digits`
  if (point > digits.length) digits = digits.padEnd(point, '0');
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  const intPart = digits.slice(0, point).replace(/^0+/, '') || '0';
  const fracPart = digits.slice(point).replace(/0+$/, '');
  const body = fracPart === '' ? intPart : `${intPart}.${fracPart}`;
  return sign === '-' && body !== '0' ? `-${body}` : body;
}

/** A canonical number as an integer and its decimal scale (value = digits / 10^scale). */
function scaled(canonical: string): { digits: bigint; scale: number } {
  const [whole, fraction = ''] = canonical.split('.');
  return { digits: BigInt(whole + fraction), scale: fraction.length };
}

/** Text of a string, finite number, bigint or valid Date (ISO); the unknown type orders these ordinally. */
function toText(raw: unknown, expected = 'expected a string, number or Date'): string {
  if (typeof raw === 'string') return raw;
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint') return String(raw);
  if (raw instanceof Date && !Number.isNaN(raw.getTime())) return raw.toISOString();
  throw new InvalidValue(expected);
}

function describe(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? 'Invalid Date' : `Date ${raw.toISOString()}`;
  if (raw instanceof Uint8Array) return `bytes 0x${Buffer.from(raw).toString('hex')}`;
  if (typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean') return String(raw);
  return raw === null ? 'null' : typeof raw;
}
