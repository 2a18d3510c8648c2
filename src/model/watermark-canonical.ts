import { DateTime } from 'luxon';

/**
 * Canonical forms and ordering of watermark values, one function per type (the rules are in
 * watermark-value.ts). Internal to the model: `WatermarkValue` is the public face.
 */

export type WatermarkType = 'datetime' | 'date' | 'number' | 'string';

const FRACTION_DIGITS = 7;
/** Date, optional time (T or space) up to seconds, optional fraction, then offset/zone (luxon parses those). */
const DATETIME_SHAPE = /^(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}){1,2})?)(?:[.,](\d+))?(.*)$/;
const DECIMAL_SHAPE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_EXPONENT = 1000;

/** Why a raw value has no canonical form (internal; the public entry points add context). */
export class InvalidValue extends Error {}

export function toCanonical(type: WatermarkType, raw: unknown): string {
  switch (type) {
    case 'datetime': return canonicalDateTime(raw);
    case 'date': return canonicalDate(raw);
    case 'number': return canonicalNumber(raw);
    case 'string':
      if (raw instanceof Date) throw new InvalidValue('expected a string or a number');
      return toText(raw, 'expected a string or a number');
  }
}

export function compareCanonical(type: WatermarkType, a: string, b: string): number {
  // Fixed-width datetime and date forms order correctly as strings.
  if (type !== 'number') return ordinal(a, b);
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  const diff = x.digits * 10n ** BigInt(scale - x.scale) - y.digits * 10n ** BigInt(scale - y.scale);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

export const ordinal = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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
export function toText(raw: unknown, expected = 'expected a string, number or Date'): string {
  if (typeof raw === 'string') return raw;
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint') return String(raw);
  if (raw instanceof Date && !Number.isNaN(raw.getTime())) return raw.toISOString();
  throw new InvalidValue(expected);
}

export function describe(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? 'Invalid Date' : `Date ${raw.toISOString()}`;
  if (raw instanceof Uint8Array) return `bytes 0x${Buffer.from(raw).toString('hex')}`;
  if (typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean') return String(raw);
  return raw === null ? 'null' : typeof raw;
}
