import { ConfigError, PermanentError } from '../platform/errors';
import { compareCanonical, describe, InvalidValue, ordinal, toCanonical, toText, type WatermarkType } from './watermark-canonical';

/**
 * Watermark values: canonical forms, ordering, and "advance, never backwards".
 *
 * Canonical forms (stable: they are stored, carried as `changeTracker`, and compared):
 * - `datetime`: ISO 8601 UTC with exactly 7 fraction digits (100 ns, .NET round-trip "o"),
 *   e.g. `2026-01-02T03:04:05.1234567Z`. Years 0001–9999. Offsets are normalised to UTC; a
 *   string without offset is UTC. Fraction digits beyond 7 are truncated (towards the past, so a
 *   watermark may re-read a row, never skip one). JS numbers (epoch) are rejected: seconds vs
 *   milliseconds is ambiguous, and a numeric tracker on a datetime job is a misconfiguration.
 * - `date`: `yyyy-MM-dd`. A string with a time keeps its written calendar date (its offset is
 *   ignored); a JS `Date` gives its UTC calendar date.
 * - `number`: exact decimal, no exponent, no leading zeros, no trailing fraction zeros (`-0` → `0`).
 *   Integers of any size (bigint, rowversion bytes, `0x…` hex) and decimals are compared exactly;
 *   JS numbers beyond `Number.MAX_SAFE_INTEGER` are rejected (precision was already lost).
 * - `string`: the value itself, ordered ordinally (UTF-16 code units, like .NET `Ordinal`).
 * An unknown type keeps values as they are (Date → ISO string) and orders them ordinally.
 */

export type { WatermarkType } from './watermark-canonical';

const TYPE_ALIASES: Record<string, WatermarkType> = {
  datetime: 'datetime', datetime2: 'datetime', datetimeoffset: 'datetime', timestamp: 'datetime', timestamptz: 'datetime',
  date: 'date',
  number: 'number', int: 'number', integer: 'number', bigint: 'number', long: 'number', decimal: 'number',
  numeric: 'number', rowversion: 'number',
  string: 'string', text: 'string', varchar: 'string', nvarchar: 'string',
};

const DEFAULTS: Record<WatermarkType, string> = {
  datetime: '0001-01-01T00:00:00.0000000Z',
  date: '0001-01-01',
  number: '0',
  string: '',
};

/** Trimmed, case-insensitive, with SQL-ish aliases (`timestamp` → datetime, `rowversion` → number). */
export function parseWatermarkType(type: string): WatermarkType | undefined {
  const key = type.trim().toLowerCase();
  return Object.hasOwn(TYPE_ALIASES, key) ? TYPE_ALIASES[key] : undefined; // not `constructor` & co.
}

export class WatermarkValue {
  private current: string | null;

  private constructor(readonly type: WatermarkType | undefined, value: string | null) {
    this.current = value;
  }

  /**
   * The watermark of a job from its configured type and stored value. Nothing stored (null,
   * undefined, blank) → the type's default. An unknown type keeps the stored value and calls `warn`.
   * @param jobName names the job in the warning and the error (optional).
   * @throws ConfigError when the stored value is not valid for a known type; the message names the command that resets it.
   */
  static initialize(type: string, stored: string | null | undefined, warn?: (message: string) => void, jobName?: string): WatermarkValue {
    const prefix = jobName === undefined ? '' : `job "${jobName}": `;
    const reset = `highwater watermark reset ${jobName ?? '<job>'}`;
    const parsed = parseWatermarkType(type);
    if (parsed === undefined) {
      warn?.(`${prefix}unknown watermark type "${type}"; keeping the stored value and comparing ordinally`);
      return new WatermarkValue(undefined, stored ?? null);
    }
    if (stored === null || stored === undefined || stored.trim() === '') return new WatermarkValue(parsed, DEFAULTS[parsed]);
    try {
      return new WatermarkValue(parsed, toCanonical(parsed, stored));
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new ConfigError(
        `${prefix}stored watermark ${describe(stored)} is not a valid ${parsed}: ${err.message}; run ${reset} to rerun from the start, or ${reset} --to <value> to set a valid one`,
        { cause: err },
      );
    }
  }

  /** Canonical string (null only for an unknown type with nothing stored). */
  get value(): string | null {
    return this.current;
  }

  /**
   * Moves to `changeTracker` when it is later by the type's order; never backwards.
   * @returns whether the watermark moved.
   * @throws PermanentError when the change tracker has no value of this type.
   */
  advance(changeTracker: unknown): boolean {
    let next: string;
    try {
      next = this.type === undefined ? toText(changeTracker) : toCanonical(this.type, changeTracker);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new PermanentError(`change tracker ${describe(changeTracker)} is not a valid ${this.type ?? 'watermark value'}: ${err.message}`, { cause: err });
    }
    const later = this.current === null || (this.type === undefined ? ordinal(next, this.current) : compareCanonical(this.type, next, this.current)) > 0;
    if (later) this.current = next;
    return later;
  }

  /**
   * Canonical string of a raw source value: Date, ISO string with any offset, number, bigint,
   * numeric string, or the bytes of a SQL Server rowversion (big-endian) for `number`.
   * @throws PermanentError when `raw` has no value of this type.
   */
  static canonicalize(type: WatermarkType, raw: unknown): string {
    try {
      return toCanonical(type, raw);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      throw new PermanentError(`${describe(raw)} is not a valid ${type} watermark value: ${err.message}`, { cause: err });
    }
  }

  /** Orders two values of a type (<0, 0, >0); accepts every form `canonicalize` accepts. */
  static compare(type: WatermarkType, a: string, b: string): number {
    return compareCanonical(type, WatermarkValue.canonicalize(type, a), WatermarkValue.canonicalize(type, b));
  }
}
