import { decimalParts } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';

/**
 * The exact-value matrix of the source and target contracts (the message contract of
 * `src/model/exact-values.ts`): values a JS number, a text column or a default driver parser
 * would change. A system declares which kinds it has a type for.
 */
export type ValueKind = 'int64' | 'decimal' | 'bytes' | 'instant' | 'json' | 'jsonExact';

/** One record per value, in this order: beyond 2^53, 2^53 + 1, 2^63 − 1, −2^63. */
export const INT64_VALUES = ['1234567890123456789', '9007199254740993', '9223372036854775807', '-9223372036854775808'] as const;
export const DECIMAL_VALUE = '12345678901234567890.123456789012';
export const BYTES_VALUE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
/** As a source writes it: an offset and microseconds. */
export const INSTANT_TEXT = '2026-01-02 03:04:05.123456+02';
/** The same instant in UTC with its six fraction digits (what {@link instantOf} gives for it). */
export const INSTANT_UTC = '2026-01-02T01:04:05.123456Z';
export const JSON_VALUE = { a: 1, nested: { b: [1, 'x', null], ok: true }, text: 'ü "q"' };
/** A JSON document whose numbers a JS number would round: travels as `{"$jsonText": …}`. */
export const JSON_EXACT_TEXT = '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827, "ok": [1, 2.5]}';

/** How each kind travels in a message body. */
const MESSAGE_VALUES: Record<ValueKind, JsonValue> = {
  int64: INT64_VALUES[0],
  decimal: DECIMAL_VALUE,
  bytes: { $binary: BYTES_VALUE.toString('base64') },
  instant: INSTANT_TEXT,
  json: JSON_VALUE,
  jsonExact: { $jsonText: JSON_EXACT_TEXT },
};

/** The first record holds one value of every kind; the others only their 64-bit integer. */
export function matrixRecord(index: number): Record<ValueKind, JsonValue> {
  const first = index === 0;
  return {
    int64: INT64_VALUES[index],
    decimal: first ? MESSAGE_VALUES.decimal : null,
    bytes: first ? MESSAGE_VALUES.bytes : null,
    instant: first ? MESSAGE_VALUES.instant : null,
    json: first ? MESSAGE_VALUES.json : null,
    jsonExact: first ? MESSAGE_VALUES.jsonExact : null,
  };
}

/**
 * An instant as UTC text with six fraction digits, from ISO 8601 or SQL text with any offset (none:
 * UTC); anything else as `not an instant: …` so that a comparison shows it.
 */
export function instantOf(value: unknown): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(String(value));
  if (!match) return `not an instant: ${String(value)}`;
  const zone = match[4];
  const offset = !zone || zone === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const seconds = new Date(`${match[1]}T${match[2]}${offset}`).toISOString().slice(0, 19);
  return `${seconds}.${(match[3] ?? '').padEnd(6, '0')}Z`;
}

/**
 * JSON text parsed with every number as a string of its exact value (`2.50` and `25e-1` both
 * `"25e-1"`), so that two texts of one document compare equal without rounding: `jsonb` orders
 * keys and white space its own way, a text column keeps them as written.
 */
export function exactJson(text: string): unknown {
  let out = '';
  let copied = 0;
  for (const match of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g)) {
    if (match[0].startsWith('"')) continue;
    const parts = decimalParts(match[0]);
    const exact = parts ? `${parts.negative ? '-' : ''}${parts.digits || '0'}e${parts.exponent}` : match[0];
    out += `${text.slice(copied, match.index)}"${exact}"`;
    copied = match.index + match[0].length;
  }
  return JSON.parse(out + text.slice(copied));
}
