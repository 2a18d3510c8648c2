import type { JsonValue } from './queue-message';

/**
 * How values that JSON cannot carry as they are travel in a message body (`fields`,
 * `targetKey`, `actionParameters`), and how a target gets them back. See README "Message
 * contract" and docs/connectors.md "Exact values".
 *
 * - Integers in ±(2^53 − 1): JSON numbers. Integers beyond (64-bit and larger) and exact
 *   decimals (PostgreSQL `numeric`, OData `Edm.Decimal`): JSON strings of their exact digits —
 *   a target column of a numeric type converts them exactly, a text column keeps them as read.
 * - Bytes: `{"$binary": "<base64>"}`. Tagged, because a string alone cannot say whether it is
 *   text or base64: a target writes bytes into BLOB/bytea/Edm.Binary without knowing its schema.
 * - A JSON object whose only key is `$binary` or `$json` travels as `{"$json": <object>}`, so
 *   that no source value is ever mistaken for a tag. Every other object or array is JSON as is.
 * - Instants: ISO 8601 text with every fraction digit the source has and its offset.
 *
 * Only objects are ever tagged, so the checks cost nothing for strings, numbers and booleans
 * (nearly every value); message version 1 bodies written before tagging (bytes as base64 text)
 * read as they did.
 */

/** Tag of bytes: `{"$binary": "<base64>"}`. */
export const BYTES_TAG = '$binary';
/** Tag of a JSON object that would otherwise look tagged: `{"$json": {...}}`. */
export const JSON_TAG = '$json';

/** Bytes as they travel in a message. */
export function bytesToJson(bytes: Uint8Array): JsonValue {
  return { [BYTES_TAG]: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
}

/** A source JSON object as it travels: as is, unless its only key is a tag (then wrapped in `$json`). */
export function objectToJson(object: Record<string, JsonValue>): JsonValue {
  let only: string | undefined;
  for (const key in object) {
    if (only !== undefined) return object; // two keys or more: never a tag
    only = key;
  }
  return only === BYTES_TAG || only === JSON_TAG ? { [JSON_TAG]: object } : object;
}

/** The tag of a message value, when it is a tagged object: `$binary` with its base64, `$json` with its object. */
export function taggedOf(value: unknown): { tag: typeof BYTES_TAG; base64: string } | { tag: typeof JSON_TAG; json: JsonValue } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let only: string | undefined;
  for (const key in value) {
    if (only !== undefined) return undefined;
    only = key;
  }
  const inner = (value as Record<string, unknown>)[only as string];
  if (only === BYTES_TAG && typeof inner === 'string') return { tag: BYTES_TAG, base64: inner };
  if (only === JSON_TAG) return { tag: JSON_TAG, json: inner as JsonValue };
  return undefined;
}

/**
 * A message value as a driver binds it: tagged bytes → Buffer, an escaped object → the object,
 * anything else itself.
 */
export function fromMessageValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const tagged = taggedOf(value);
  if (!tagged) return value;
  return tagged.tag === BYTES_TAG ? Buffer.from(tagged.base64, 'base64') : tagged.json;
}

/**
 * A message value as plain JSON for a JSON API (OData, Dataverse, Business Central): tagged
 * bytes → base64 text (how OData writes Edm.Binary), an escaped object → the object.
 */
export function toPlainJson(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  const tagged = taggedOf(value);
  if (!tagged) return value;
  return tagged.tag === BYTES_TAG ? tagged.base64 : tagged.json;
}

/**
 * A record's values as plain JSON ({@link toPlainJson}): the record itself when none is an object
 * (no copy, one `typeof` per value), else a copy.
 */
export function plainRecord(record: Record<string, JsonValue>): Record<string, JsonValue> {
  let out: Record<string, JsonValue> | undefined;
  for (const key in record) {
    const value = record[key];
    if (typeof value !== 'object' || value === null) continue;
    const plain = toPlainJson(value);
    if (plain !== value) (out ??= { ...record })[key] = plain;
  }
  return out ?? record;
}

/** A decimal literal's value: sign, significant digits (no leading or trailing zeros) and the power of ten of the last one. */
interface DecimalParts {
  negative: boolean;
  digits: string;
  exponent: number;
}

const DECIMAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/** `text` as a decimal number (`12`, `-1.50`, `.5`, `1e-7`, surrounding spaces); undefined when it is none. */
export function decimalParts(text: string): DecimalParts | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', power = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(power) - fraction.length;
  const trailing = /0*$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return { negative: sign === '-', digits, exponent };
}

/** Whether decimal `text` and the JS number `n` are the same value (as `String(n)` writes it). */
export function sameDecimal(text: string, n: number): boolean {
  const a = decimalParts(text);
  const b = Number.isFinite(n) ? decimalParts(String(n)) : undefined;
  return a !== undefined && b !== undefined && a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

/** The exact integer of a decimal literal (`"12"`, `"1.20e1"`); undefined when it has a fraction or is no number. */
export function integerOf(text: string): bigint | undefined {
  const parts = decimalParts(text);
  if (!parts || parts.exponent < 0 || parts.exponent > 400) return undefined;
  if (parts.digits === '') return 0n;
  const value = BigInt(parts.digits + '0'.repeat(parts.exponent));
  return parts.negative ? -value : value;
}

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
