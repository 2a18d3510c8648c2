import { DateTime } from 'luxon';
import { ConfigError, PermanentError } from '../../src/platform/errors';
import type { SourceOperation } from '../../src/model/mapping';

/** A source record as read: column name → driver value. */
export type SourceRow = Readonly<Record<string, unknown>>;

/**
 * Applies a field mapping's source operations in order. Semantics (null means null or undefined):
 * - `trim` / `upper` / `lower`: null stays null; other values become text first
 *   (Date → ISO 8601 UTC, everything else `String(v)`).
 * - `concat`: the current value, then each `fields` value of the row, as text, joined with
 *   `separator` (default `''`); null parts are left out; all parts null → null.
 * - `formatDate`: null or `''` → null; a Date, an ISO 8601 / SQL date-time string (no offset → UTC)
 *   or epoch milliseconds, shown in `zone` (default `utc`) with the luxon `format`.
 * - `formatNumber`: null or `''` → null; a number or numeric text as `toFixed(decimals)` text.
 * - `default`: null or `''` → `value`; anything else stays.
 * - `constant`: always `value`.
 * - `valueMap`: looks the value up as text; unmatched (or null) → `default` when given, else unchanged.
 * @param where names the mapped field in error messages, e.g. `field "name"`.
 * @throws PermanentError when a value cannot be converted (not a date, not a number).
 * @throws ConfigError when an operation is misconfigured (unknown zone, bad decimals).
 */
export function applyOperations(value: unknown, operations: readonly SourceOperation[], row: SourceRow, where: string): unknown {
  return operations.reduce((current, operation) => applyOperation(current, operation, row, where), value);
}

function applyOperation(value: unknown, operation: SourceOperation, row: SourceRow, where: string): unknown {
  switch (operation.op) {
    case 'trim':
      return isNull(value) ? null : toText(value).trim();
    case 'upper':
      return isNull(value) ? null : toText(value).toUpperCase();
    case 'lower':
      return isNull(value) ? null : toText(value).toLowerCase();
    case 'concat': {
      const parts = [value, ...operation.fields.map((field) => row[field])].filter((part) => !isNull(part));
      return parts.length === 0 ? null : parts.map(toText).join(operation.separator ?? '');
    }
    case 'formatDate':
      return formatDate(value, operation.format, operation.zone ?? 'utc', where);
    case 'formatNumber':
      return formatNumber(value, operation.decimals, where);
    case 'default':
      return isNull(value) || value === '' ? operation.value : value;
    case 'constant':
      return operation.value;
    case 'valueMap': {
      if (!isNull(value)) {
        const key = toText(value);
        if (Object.prototype.hasOwnProperty.call(operation.map, key)) return operation.map[key];
      }
      return 'default' in operation ? operation.default : value;
    }
    default: {
      const unknown: { op?: unknown } = operation;
      throw new ConfigError(`${where}: unknown source operation ${JSON.stringify(unknown.op)}`);
    }
  }
}

function isNull(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** Text of a driver value: Date → ISO 8601 UTC, everything else `String(v)`. */
export function toText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function formatDate(value: unknown, format: string, zone: string, where: string): string | null {
  if (isNull(value) || value === '') return null;
  let at: DateTime;
  if (value instanceof Date) at = DateTime.fromJSDate(value, { zone: 'utc' });
  else if (typeof value === 'number') at = DateTime.fromMillis(value, { zone: 'utc' });
  else if (typeof value === 'string') {
    at = DateTime.fromISO(value.trim(), { zone: 'utc' });
    if (!at.isValid) at = DateTime.fromSQL(value.trim(), { zone: 'utc' });
  } else at = DateTime.invalid('unsupported value');
  if (!at.isValid) throw new PermanentError(`${where}: formatDate: ${JSON.stringify(toText(value))} is not a date`);
  const shown = at.setZone(zone);
  if (!shown.isValid) throw new ConfigError(`${where}: formatDate: unknown time zone ${JSON.stringify(zone)}`);
  return shown.toFormat(format);
}

function formatNumber(value: unknown, decimals: number, where: string): string | null {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 100) {
    throw new ConfigError(`${where}: formatNumber: decimals must be an integer from 0 to 100, got ${JSON.stringify(decimals)}`);
  }
  if (isNull(value) || value === '') return null;
  const number = typeof value === 'number' ? value : typeof value === 'bigint' || typeof value === 'string' ? Number(String(value).trim()) : NaN;
  if (!Number.isFinite(number) || (typeof value === 'string' && value.trim() === '')) {
    throw new PermanentError(`${where}: formatNumber: ${JSON.stringify(toText(value))} is not a number`);
  }
  return number.toFixed(decimals);
}
