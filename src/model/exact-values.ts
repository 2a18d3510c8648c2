import { JsonText } from './json-text';
import type { JsonValue } from './queue-message';

export { decimalParts, INT64_MAX, INT64_MIN, integerOf, sameDecimal } from './decimal-text';

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
 * - A JSON document (PostgreSQL `json`/`jsonb`, MySQL/MariaDB `JSON`) travels as its JSON value
 *   when every number in it is exact as a JS number; otherwise as `{"$jsonText": "<its exact
 *   text>"}` (`json-text.ts`), since the body itself is read with `JSON.parse`. A target writes
 *   that text as is into a JSON or text column (an untyped or complex OData property gets the
 *   document in the body) and refuses any other column, naming it — never a rounded number.
 * - A JSON object whose only key is `$binary`, `$json` or `$jsonText` travels as `{"$json":
 *   <object>}`, so that no source value is ever mistaken for a tag. Every other object or array
 *   is JSON as is.
 * - Instants: ISO 8601 text with every fraction digit the source has and its offset.
 *
 * Only objects are ever tagged, so the checks cost nothing for strings, numbers and booleans
 * (nearly every value); message version 1 bodies written before tagging (bytes as base64 text)
 * read as they did.
 */

/** Tag of bytes: `{"$binary": "<base64>"}`. */
export const BYTES_TAG = '$binary';
/** Tag of a JSON object that would otherwise look tagged: `{"$json": {...}}`. */
const JSON_TAG = '$json';
/** Tag of a JSON document a JS number would round: `{"$jsonText": "<exact JSON text>"}`. */
export const JSON_TEXT_TAG = '$jsonText';

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
  return only === BYTES_TAG || only === JSON_TAG || only === JSON_TEXT_TAG ? { [JSON_TAG]: object } : object;
}

/** A JSON document kept as its exact text, as it travels in a message. */
export function jsonTextToJson(text: string): JsonValue {
  return { [JSON_TEXT_TAG]: text };
}

/** The tags of message values. */
export type Tagged =
  | { tag: typeof BYTES_TAG; base64: string }
  | { tag: typeof JSON_TAG; json: JsonValue }
  | { tag: typeof JSON_TEXT_TAG; text: string };

/** The tag of a message value, when it is a tagged object: `$binary` with its base64, `$json` with its object, `$jsonText` with its text. */
export function taggedOf(value: unknown): Tagged | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let only: string | undefined;
  for (const key in value) {
    if (only !== undefined) return undefined;
    only = key;
  }
  const inner = (value as Record<string, unknown>)[only as string];
  if (only === BYTES_TAG && typeof inner === 'string') return { tag: BYTES_TAG, base64: inner };
  if (only === JSON_TAG) return { tag: JSON_TAG, json: inner as JsonValue };
  if (only === JSON_TEXT_TAG && typeof inner === 'string') return { tag: JSON_TEXT_TAG, text: inner };
  return undefined;
}

/**
 * A message value as a driver binds it: tagged bytes → Buffer, an escaped object → the object,
 * a JSON document's exact text → a {@link JsonText}, anything else itself.
 */
export function fromMessageValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const tagged = taggedOf(value);
  if (!tagged) return value;
  return tagged.tag === BYTES_TAG ? Buffer.from(tagged.base64, 'base64') : tagged.tag === JSON_TAG ? tagged.json : new JsonText(tagged.text);
}

/** A value of a plain JSON record ({@link plainRecord}): JSON, or a document kept as its exact text. */
export type PlainValue = JsonValue | JsonText;

/**
 * A message value as plain JSON for a JSON API (OData, Dataverse, Business Central): tagged
 * bytes → base64 text (how OData writes Edm.Binary), an escaped object → the object, a JSON
 * document's exact text → a {@link JsonText} (the request body writes it as the document).
 */
export function toPlainJson(value: JsonValue): PlainValue {
  if (typeof value !== 'object' || value === null) return value;
  const tagged = taggedOf(value);
  if (!tagged) return value;
  return tagged.tag === BYTES_TAG ? tagged.base64 : tagged.tag === JSON_TAG ? tagged.json : new JsonText(tagged.text);
}

/**
 * A record's values as plain JSON ({@link toPlainJson}): the record itself when none is an object
 * (no copy, one `typeof` per value), else a copy.
 */
export function plainRecord(record: Record<string, JsonValue>): Record<string, PlainValue> {
  let out: Record<string, PlainValue> | undefined;
  for (const key in record) {
    const value = record[key];
    if (typeof value !== 'object' || value === null) continue;
    const plain = toPlainJson(value);
    if (plain !== value) (out ??= { ...record })[key] = plain;
  }
  return out ?? record;
}

