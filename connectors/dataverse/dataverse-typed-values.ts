import { PermanentError } from '../../src/platform/errors';
import { BYTES_TAG, decimalParts, JSON_TEXT_TAG, plainRecord, taggedOf } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';
import { canonicalDecimal, ExactNumber, typedValue } from '../odata/typed-values';
import type { DataverseColumn, DataverseColumns } from './dataverse-columns';

/**
 * A message's fields as a Dataverse table's columns take them (types from `dataverse-columns.ts`):
 * a string of digits for a `BigInt`, `Integer`, `Decimal`, `Money` or `Double` column becomes a
 * JSON number with every digit (an {@link ExactNumber}: the request's JSON text carries the
 * digits, never a double's rounding); bytes (`{"$binary": …}`) go as base64 into an image column,
 * the only kind Dataverse takes inline. A value the column cannot take unchanged fails the message
 * naming the column: text that is no number, beyond 64 bits, more fraction digits than the
 * column keeps, bytes for any other column. A JSON document kept as its exact text
 * (`{"$jsonText": …}`, numbers beyond a double) goes as that text into a `String` or `Memo`
 * column (Dataverse has no JSON type) and fails for any other.
 */

const INTEGER_TYPES: Record<string, string> = { BigInt: 'Edm.Int64', Integer: 'Edm.Int32' };
const DECIMAL_TYPES = new Set(['Decimal', 'Money', 'Double']);
const TEXT_TYPES = new Set(['String', 'Memo']);

/**
 * The record of a write body: `fields` typed by `columns` (see the module comment), then as plain
 * JSON (`plainRecord`). Without `columns`, only the plain JSON (bytes as base64).
 * @param set the entity set, for errors: `column "price" of products (Decimal, 2 fraction digits): …`.
 * @throws PermanentError for a value its column cannot take.
 */
export function dataverseRecord(fields: Record<string, JsonValue>, columns: DataverseColumns | undefined, set: string): Record<string, JsonValue> {
  // A `$jsonText` makes the columns be read (needsColumnTypes), and is typed to text below: no JsonText is left.
  if (!columns) return plainRecord(fields) as Record<string, JsonValue>;
  let typed: Record<string, unknown> | undefined;
  for (const name in fields) {
    const column = columns.get(name);
    const value = fields[name];
    const out = typedColumnValue(value, column, name, set);
    if (out !== value) (typed ??= { ...fields })[name] = out;
  }
  return plainRecord((typed ?? fields) as Record<string, JsonValue>) as Record<string, JsonValue>;
}

function typedColumnValue(value: JsonValue, column: DataverseColumn | undefined, name: string, set: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (typeof value !== 'string' || !column) return value;
    return typedText(value, column, `column "${name}" of ${set}`);
  }
  const tagged = taggedOf(value);
  const kind = column ? ` (${column.typeName ?? column.type})` : ' (not a column of the table)';
  if (tagged?.tag === JSON_TEXT_TAG) {
    if (column && TEXT_TYPES.has(column.type)) return tagged.text;
    throw new PermanentError(`column "${name}" of ${set}${kind}: a JSON document with numbers beyond a double can be written only as text, to a String or Memo column`);
  }
  if (tagged?.tag !== BYTES_TAG) return value;
  if (column?.typeName === 'ImageType') return value; // base64 by plainRecord
  throw new PermanentError(`column "${name}" of ${set}${kind}: bytes can be written only to an image column (Dataverse takes other files by their own upload requests)`);
}

function typedText(value: string, column: DataverseColumn, what: string): unknown {
  const edm = INTEGER_TYPES[column.type];
  if (edm) return typedValue(value, edm, `${what} (${column.type})`) as unknown;
  if (!DECIMAL_TYPES.has(column.type)) return value;
  const label = `${what} (${column.type}${column.scale === undefined ? '' : `, ${column.scale} fraction digits`})`;
  const text = canonicalDecimal(value);
  if (text === undefined) throw new PermanentError(`${label}: ${JSON.stringify(value)} is not a decimal number`);
  const parts = decimalParts(text);
  const fractionDigits = parts && parts.exponent < 0 ? -parts.exponent : 0;
  if (column.scale !== undefined && fractionDigits > column.scale) throw new PermanentError(`${label}: ${value} has ${fractionDigits} fraction digits; the column would round it`);
  return new ExactNumber(text);
}

/** Whether typing can change what a message's fields send: a string that is a number (not a GUID, not a date), bytes, or a JSON document's exact text. */
export function needsColumnTypes(fields: Readonly<Record<string, JsonValue>>): boolean {
  for (const name in fields) {
    const value = fields[name];
    if (typeof value === 'string') {
      if (decimalParts(value) !== undefined) return true;
    } else if (typeof value === 'object' && value !== null) {
      const tag = taggedOf(value)?.tag;
      if (tag === BYTES_TAG || tag === JSON_TEXT_TAG) return true;
    }
  }
  return false;
}
