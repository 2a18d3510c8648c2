import { randomUUID } from 'node:crypto';
import type { EntityDescription } from '../base/entity-describer';
import { PermanentError } from '../../src/platform/errors';
import { decimalParts, INT64_MAX, INT64_MIN, integerOf } from '../../src/model/exact-values';
import { JsonText, spliceJsonTexts } from '../../src/model/json-text';

/**
 * Values typed by the properties of an entity set's `$metadata` (service-model.ts): what JSON alone
 * cannot say. Read: `Edm.Binary` (base64 text in OData JSON) becomes bytes, so that a message carries
 * `{"$binary": …}`; an `Edm.Int64` a service writes as a string (`IEEE754Compatible`) becomes a
 * number when a double holds it. Written (bodies, keys, filters): an `Edm.Int64` or `Edm.Decimal`
 * given as a string of digits becomes an {@link ExactNumber}: a bare literal in a URL, and in a
 * body a JSON number with every digit (or a string where the service reads strings exactly). A
 * JSON document kept as its exact text ({@link JsonText}, numbers beyond a double) goes into the
 * body as the document itself where the property takes any JSON (`Edm.Untyped`, a complex or
 * collection type, a property `$metadata` does not describe), as text into an `Edm.String`, and
 * fails naming the property for any other type.
 */

/** A number written with exactly these digits: a bare literal in a URL; in a body, see {@link exactJsonText}. */
export class ExactNumber {
  constructor(readonly text: string) {}

  toJSON(): string {
    return `${MARK}${this.text}`;
  }

  toString(): string {
    return this.text;
  }
}

// A NUL and a per-process random word: no value from a message can carry the mark by chance.
const NONCE = randomUUID().replace(/-/g, '');
const MARK = `\u0000${NONCE}:`;
const MARKED_TEXT = `\\u0000${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000${NONCE}:(-?[0-9][0-9.eE+-]*)"`, 'g');

/**
 * JSON text of a request body: {@link ExactNumber}s as JSON numbers with their digits, or as strings
 * when `asStrings` (a service that reads `IEEE754Compatible=true` bodies); {@link JsonText}s as
 * their documents. One `includes` each when there are none.
 */
export function exactJsonText(body: unknown, asStrings = false): string {
  const text = spliceJsonTexts(JSON.stringify(body));
  if (!text.includes(MARKED_TEXT)) return text;
  return text.replace(MARKED, asStrings ? '"$1"' : '$1');
}

const INTEGER_TYPES = new Set(['Edm.Int64', 'Edm.Int32', 'Edm.Int16', 'Edm.Byte', 'Edm.SByte']);

/**
 * A message value as the property of type `type` takes it (see the module comment).
 * @param what names the property in errors, e.g. `property "big" of Values`.
 * @throws PermanentError for text that is not a number of the property's type (or beyond 64 bits).
 */
export function typedValue(value: unknown, type: string | undefined, what: string): unknown {
  if (value instanceof JsonText) return typedJsonText(value, type, what);
  if (typeof value !== 'string' || type === undefined) return value;
  if (INTEGER_TYPES.has(type)) {
    const n = integerOf(value);
    if (n === undefined) throw new PermanentError(`${what} (${type}): ${JSON.stringify(value)} is not an integer`);
    if (type === 'Edm.Int64' && (n < INT64_MIN || n > INT64_MAX)) throw new PermanentError(`${what} (${type}): ${value} is beyond 64 bits`);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : new ExactNumber(n.toString());
  }
  if (type === 'Edm.Decimal') {
    const text = canonicalDecimal(value);
    if (text === undefined) throw new PermanentError(`${what} (${type}): ${JSON.stringify(value)} is not a decimal number`);
    return new ExactNumber(text);
  }
  return value;
}

/**
 * A JSON document's exact text for a property of `type`: the document where the property takes
 * any JSON (no type known, `Edm.Untyped`, a complex or collection type), its text for an
 * `Edm.String`.
 * @throws PermanentError naming the property for any other type.
 */
function typedJsonText(value: JsonText, type: string | undefined, what: string): unknown {
  if (type === undefined || type === 'Edm.Untyped' || !type.startsWith('Edm.')) return value;
  if (type === 'Edm.String') return value.text;
  throw new PermanentError(`${what} (${type}): a JSON document with numbers beyond a double can be written only to an Edm.String, Edm.Untyped, complex or collection property`);
}

const DECIMAL_TEXT = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * Decimal text as a JSON number and OData literal write it, every digit kept (trailing fraction
 * zeros too: they are the value's scale): `+5` → `5`, `.50` → `0.50`, `007` → `7`, `1.` → `1`,
 * `1E3` → `1e3`; undefined when it is no decimal number.
 */
export function canonicalDecimal(text: string): string | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match || decimalParts(text) === undefined) return undefined;
  const [, sign, whole, fraction = '', power] = match;
  const digits = whole.replace(/^0+(?=\d)/, '') || '0';
  return `${sign === '-' ? '-' : ''}${digits}${fraction === '' ? '' : `.${fraction}`}${power === undefined ? '' : `e${power}`}`;
}

const TYPES = new WeakMap<EntityDescription, ReadonlyMap<string, string>>();

/** The property types of an entity set, name → `Edm.*` (built once per description); undefined when the set is not described. */
export function propertyTypes(entity: EntityDescription | undefined): ReadonlyMap<string, string> | undefined {
  if (!entity) return undefined;
  let types = TYPES.get(entity);
  if (!types) {
    types = new Map([...entity.columns.values()].map((c) => [c.name, c.type]));
    TYPES.set(entity, types);
  }
  return types;
}

/** A record for a request body: its Int64 and Decimal strings typed ({@link typedValue}); the record itself when nothing changes. */
export function typedRecord<T>(record: Record<string, T>, types: ReadonlyMap<string, string> | undefined, set: string): Record<string, T | unknown> {
  if (!types) return record;
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    const value = record[key];
    if (typeof value !== 'string' && !(value instanceof JsonText)) continue;
    const typed = typedValue(value, types.get(key), `property "${key}" of ${set}`);
    if (typed !== value) (out ??= { ...record })[key] = typed;
  }
  return out ?? record;
}

/**
 * A record as read, typed: `Edm.Binary` base64 text (either alphabet) → bytes; an `Edm.Int64`
 * string a double holds → number; other strings (exact decimals, 64-bit integers beyond 2^53) kept.
 * The row itself when nothing changes (no copy per row for services without such properties).
 */
export function readTypedRow(row: Record<string, unknown>, types: ReadonlyMap<string, string> | undefined): Record<string, unknown> {
  if (!types) return row;
  let out: Record<string, unknown> | undefined;
  for (const key in row) {
    const value = row[key];
    if (typeof value !== 'string') continue;
    const type = types.get(key);
    let typed: unknown = value;
    if (type === 'Edm.Binary') typed = Buffer.from(value, 'base64');
    else if (type === 'Edm.Int64') {
      const n = integerOf(value);
      if (n !== undefined && n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)) typed = Number(n);
    }
    if (typed !== value) (out ??= { ...row })[key] = typed;
  }
  return out ?? row;
}
