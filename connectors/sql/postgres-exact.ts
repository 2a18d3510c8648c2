import { PermanentError } from '../../src/platform/errors';
import { decimalParts, integerOf, JSON_TEXT_TAG, sameDecimal, taggedOf } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';
import { JSON_ARRAY_TYPES, jsonArrayProblem } from './postgres-json-array';

/** Why a value does not fit a column exactly; undefined when it does. */
export type Check = (value: JsonValue) => string | undefined;

const INTEGER_RANGES: Record<string, readonly [bigint, bigint]> = {
  smallint: [-(2n ** 15n), 2n ** 15n - 1n],
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  bigint: [-(2n ** 63n), 2n ** 63n - 1n],
};
const NUMERIC = /^numeric(?:\((\d+)(?:,(-?\d+))?\))?$/;
const TIMESTAMP = /^timestamp(?:\((\d)\))? with(?:out)? time zone$/;
const FRACTION = /\d{2}:\d{2}:\d{2}\.(\d+)/;

/** Whether a date-time text has a non-zero digit after the first `digits` of its fraction of a second. */
function fractionBeyond(text: string, digits: number): boolean {
  const fraction = FRACTION.exec(text)?.[1];
  return fraction !== undefined && fraction.length > digits && /[1-9]/.test(fraction.slice(digits));
}

/**
 * The exactness check of a column type as `format_type` spells it, for the types where
 * PostgreSQL would round a value silently (`numeric(p,s)` to `s` fraction digits, `double
 * precision` to 17 significant digits, a timestamp to microseconds: a 7th non-zero digit, as
 * .NET writes them, fails) or refuse it without naming the column (a fraction or an out-of-range
 * value for `smallint`/`integer`/`bigint`). Other types need none: they keep what they accept,
 * and refuse the rest themselves.
 */
function exactCheckOf(type: string): Check | undefined {
  const range = INTEGER_RANGES[type];
  if (range) return (value) => integerProblem(value, range, type);
  const numeric = NUMERIC.exec(type);
  if (numeric) {
    if (numeric[1] === undefined) return undefined; // unconstrained numeric: every digit kept
    const precision = Number(numeric[1]);
    const scale = Number(numeric[2] ?? '0');
    return (value) => numericProblem(value, precision, scale, type);
  }
  const timestamp = TIMESTAMP.exec(type);
  if (timestamp) {
    const digits = Number(timestamp[1] ?? '6');
    return (value) => (typeof value === 'string' && fractionBeyond(value, digits) ? `more than ${digits} fraction digits of a second: ${type} would round it` : undefined);
  }
  if (type === 'double precision') return (value) => (typeof value === 'string' && decimalParts(value) && !sameDecimal(value, Number(value)) ? `more digits than ${type} holds` : undefined);
  return undefined;
}

/** Column types that take a JSON document's exact text as it is: JSON types (which keep its numbers exactly) and text. */
const JSON_TEXT_TYPES = /^(?:json|jsonb|text|character varying(?:\(\d+\))?)$/;

/**
 * `check`, extended for a column that cannot take a JSON document's exact text (`{"$jsonText":
 * …}`, numbers beyond a double): such a value fails naming the column instead of being cast or
 * changed. Only objects are looked at, so the cost for other values is one `typeof`.
 * @param accepts what the column would take, for the error.
 */
export function refusingJsonText(check: Check | undefined, type: string, accepts: string): Check {
  return (value) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && taggedOf(value)?.tag === JSON_TEXT_TAG) {
      return `a JSON document with numbers beyond a double is written exactly only into ${accepts}, not ${type}`;
    }
    return check?.(value);
  };
}

/** Why `value` is not a whole number in `[min, max]` (`type` names the column type); undefined when it is, or is no number at all (the database says so). */
export function integerProblem(value: JsonValue, [min, max]: readonly [bigint, bigint], type: string): string | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const integer = typeof value === 'number' ? (Number.isInteger(value) ? BigInt(value) : undefined) : integerOf(value);
  if (integer === undefined) return typeof value === 'string' && !decimalParts(value) ? undefined : `not an integer, as ${type} needs`; // not numeric: PostgreSQL says so
  return integer < min || integer > max ? `beyond the range of ${type}` : undefined;
}

/** Why `value` does not fit `numeric(precision, scale)` exactly; undefined when it does. */
export function numericProblem(value: JsonValue, precision: number, scale: number, type: string): string | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const parts = decimalParts(typeof value === 'number' ? String(value) : value);
  if (!parts || parts.digits === '') return undefined;
  if (-parts.exponent > scale) return `more than ${scale} fraction digits: ${type} would round it`;
  if (parts.digits.length + parts.exponent > precision - scale) return `more than ${precision - scale} integer digits: beyond ${type}`;
  return undefined;
}

/**
 * The first value of `record` that a column of `types` cannot hold exactly, as a PermanentError
 * naming the column; undefined when every value fits.
 * @param checks by column, from {@link exactCheckOf} (columns without a check are left out).
 */
export function exactnessError(record: Record<string, JsonValue>, checks: ReadonlyMap<string, Check>, entity: string): PermanentError | undefined {
  // By the record's fields (usually fewer than a table's columns, every one of which may have a check).
  for (const column in record) {
    const value = record[column];
    if (value === undefined || value === null) continue;
    const problem = checks.get(column)?.(value);
    if (problem) {
      const tagged = typeof value === 'object' ? taggedOf(value) : undefined;
      const text = tagged?.tag === JSON_TEXT_TAG ? tagged.text : typeof value === 'object' ? JSON.stringify(value) : String(value);
      return new PermanentError(`column "${column}" of ${entity}: ${text.length > 60 ? `${text.slice(0, 60)}…` : text} cannot be stored exactly (${problem})`);
    }
  }
  return undefined;
}

/** Checks per column-types map (a table's, cached by `PostgresColumnTypes` until it is read again). */
const CHECKS = new WeakMap<ReadonlyMap<string, string>, ReadonlyMap<string, Check>>();

/**
 * The checks of the columns in `types` that need one (built once per map): {@link exactCheckOf}'s,
 * and for every column but json, jsonb and text ones, a JSON document's exact text is refused —
 * but for `json[]`/`jsonb[]`, which take it when it is a JSON array (`postgres-json-array.ts`).
 */
export function exactChecks(types: ReadonlyMap<string, string>): ReadonlyMap<string, Check> {
  let checks = CHECKS.get(types);
  if (!checks) {
    const built = new Map<string, Check>();
    for (const [column, type] of types) {
      const check = exactCheckOf(type);
      if (JSON_ARRAY_TYPES.test(type)) built.set(column, jsonArrayProblem);
      else if (!JSON_TEXT_TYPES.test(type)) built.set(column, refusingJsonText(check, type, 'json, jsonb or text columns'));
      else if (check) built.set(column, check);
    }
    CHECKS.set(types, (checks = built));
  }
  return checks;
}
