import { PermanentError } from '../../src/platform/errors';
import { decimalParts, integerOf, sameDecimal } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';

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
export function exactCheckOf(type: string): Check | undefined {
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
  for (const [column, check] of checks) {
    const value = record[column];
    if (value === undefined || value === null) continue;
    const problem = check(value);
    if (problem) {
      const text = String(value);
      return new PermanentError(`column "${column}" of ${entity}: ${text.length > 60 ? `${text.slice(0, 60)}…` : text} cannot be stored exactly (${problem})`);
    }
  }
  return undefined;
}

/** Checks per column-types map (a table's, cached by `PostgresColumnTypes` until it is read again). */
const CHECKS = new WeakMap<ReadonlyMap<string, string>, ReadonlyMap<string, Check>>();

/** The checks of the columns in `types` that need one (built once per map). */
export function exactChecks(types: ReadonlyMap<string, string>): ReadonlyMap<string, Check> {
  let checks = CHECKS.get(types);
  if (!checks) {
    const built = new Map<string, Check>();
    for (const [column, type] of types) {
      const check = exactCheckOf(type);
      if (check) built.set(column, check);
    }
    CHECKS.set(types, (checks = built));
  }
  return checks;
}
