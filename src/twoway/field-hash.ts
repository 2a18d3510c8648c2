import { createHash } from 'node:crypto';
import { taggedOf } from '../model/exact-values';
import type { JsonValue } from '../model/queue-message';

/**
 * The hash of one field's value as a coupling keeps it. Two systems rarely read a value back
 * exactly as it was written — PostgreSQL `numeric(10,2)` reads 5 as "5.00", SQLite has no
 * boolean and stores 1, Dataverse stores an empty string as null, a date-time comes back in
 * another notation — and a value that looks changed after every write would bounce between the
 * sides for ever. So values are compared by meaning, not notation:
 *
 * - null, undefined and `''` are the same (no value);
 * - booleans are the numbers 1 and 0;
 * - a number and its decimal text are the same, and trailing zeros of a fraction do not count
 *   ("5.50" = 5.5); leading zeros do ("007" is text, not 7: a zip code must stay a zip code);
 * - an ISO 8601 or SQL date-time with a time of day is its instant (no offset = UTC), to the
 *   digit its fraction has (microseconds count);
 * - bytes (`$binary`) are their base64; objects compare key order-free, arrays in order.
 */
export function fieldHash(value: JsonValue | undefined): string {
  return createHash('sha256').update(normalizedText(value)).digest('hex').slice(0, 16);
}

/** The text two values share exactly when {@link fieldHash} holds them equal (for tests and logs). */
export function normalizedText(value: JsonValue | undefined): string {
  if (value === null || value === undefined || value === '') return 'null';
  if (typeof value === 'boolean') return value ? 'n:1' : 'n:0';
  if (typeof value === 'number') return `n:${numberText(value)}`;
  if (typeof value === 'string') return stringText(value);
  if (Array.isArray(value)) return `[${value.map(normalizedText).join(',')}]`;
  const tagged = taggedOf(value);
  if (tagged?.tag === '$binary') return `b:${tagged.base64}`;
  if (tagged?.tag === '$json') return normalizedText(tagged.json);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${normalizedText(value[k])}`).join(',')}}`;
}

const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function numberText(value: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value)) return Object.is(value, -0) ? '0' : String(value);
  return decimalText(String(value)) ?? String(value);
}

function stringText(value: string): string {
  if (DECIMAL.test(value)) {
    // Leading zeros make it text (a code, not a quantity), except the one before a point.
    const unsigned = value.startsWith('-') ? value.slice(1) : value;
    if (!/^0\d/.test(unsigned)) return `n:${decimalText(value)}`;
  }
  const at = DATE_TIME.exec(value);
  if (at) {
    const instant = instantText(at[1], at[2], at[3] ?? '', at[4]);
    if (instant !== undefined) return `t:${instant}`;
  }
  return `s:${value}`;
}

/** Decimal text without a trailing fraction's zeros and without `-0`. */
function decimalText(text: string): string | undefined {
  if (!DECIMAL.test(text)) return undefined;
  let out = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  out = out.replace(/^(-?)0+(?=\d)/, '$1');
  return out === '-0' ? '0' : out;
}

/** `YYYY-MM-DDTHH:MM:SS.fffZ` plus the fraction digits beyond milliseconds (trailing zeros dropped). */
function instantText(date: string, time: string, fraction: string, zone: string | undefined): string | undefined {
  const seconds = time.length === 5 ? `${time}:00` : time;
  const offset = zone === undefined || zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(`${date}T${seconds}.${(fraction + '000').slice(0, 3)}${offset}`);
  if (Number.isNaN(ms)) return undefined;
  const beyond = fraction.slice(3).replace(/0+$/, '');
  return `${new Date(ms).toISOString()}${beyond}`;
}
