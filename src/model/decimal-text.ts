/**
 * Decimal literals by value: the exact comparisons behind the message contract
 * (`exact-values.ts`), without rounding through a JS number.
 */

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
