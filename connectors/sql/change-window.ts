import { decodeOpaqueCursor, encodeOpaqueCursor, invalidCursor } from '../base/paging-cursor';
import type { WatermarkType } from '../../src/model/watermark-value';

const EARLIEST_DATETIME = '0001-01-01T00:00:00.0000000Z';
const EARLIEST_DATE = '0001-01-01';
const CANONICAL_DATETIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/**
 * The exclusive lower bound of a run: the watermark moved back by the lookback window, so that
 * rows committed late with an older change tracker are read again. `datetime` moves by seconds
 * (fraction digits kept), `date` by whole days (rounded up); `number` and `string` have no time
 * axis and are not moved. Never earlier than 0001-01-01.
 */
export function lookbackLowerBound(type: WatermarkType | undefined, canonical: string, lookbackSeconds: number): string {
  if (!(lookbackSeconds > 0)) return canonical;
  if (type === 'datetime') {
    const match = CANONICAL_DATETIME.exec(canonical);
    if (!match) return canonical;
    const shifted = Date.parse(`${match[1]}Z`) - Math.ceil(lookbackSeconds) * 1000;
    if (!(shifted >= Date.parse('0001-01-01T00:00:00Z'))) return EARLIEST_DATETIME;
    return `${new Date(shifted).toISOString().slice(0, 19)}${match[2] ?? ''}Z`;
  }
  if (type === 'date') {
    const days = Math.ceil(lookbackSeconds / 86_400);
    const shifted = Date.parse(`${canonical}T00:00:00Z`) - days * 86_400_000;
    if (!(shifted >= Date.parse('0001-01-01T00:00:00Z'))) return EARLIEST_DATE;
    return new Date(shifted).toISOString().slice(0, 10);
  }
  return canonical;
}

/** Where a run stands: its upper bound and the last (watermark, key) read, in driver form. */
export interface RunPosition {
  upper: unknown;
  /** Exclusive upper bound: the settled horizon (settled-horizon.ts), for time stamps; driver form. */
  before?: unknown;
  after?: { watermark: unknown; keys: unknown[] };
  /**
   * SQLite datetime columns only (`sqlite-datetime-window.ts`): the run's exact canonical window
   * and the column's numeric kind; the SQL bounds above are then supersets.
   */
  exact?: { floor: string | null; ceiling: string; before?: string; numeric?: 'julian' | 'unix' };
}

/** An opaque cursor for {@link RunPosition} (base64url JSON). */
export function encodeCursor(position: RunPosition): string {
  return encodeOpaqueCursor(position);
}

/** @throws PermanentError when the cursor was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string): RunPosition {
  const parsed = decodeOpaqueCursor(cursor);
  if (!('upper' in parsed)) throw invalidCursor();
  const { upper, before, after, exact } = parsed as { upper: unknown; before?: unknown; after?: { watermark: unknown; keys: unknown }; exact?: RunPosition['exact'] };
  if (after !== undefined && (typeof after !== 'object' || after === null || !Array.isArray(after.keys))) throw invalidCursor();
  if (exact !== undefined && (typeof exact !== 'object' || exact === null || typeof exact.ceiling !== 'string')) throw invalidCursor();
  return { upper, ...(before !== undefined ? { before } : {}), ...(after ? { after: { watermark: after.watermark, keys: after.keys as unknown[] } } : {}), ...(exact ? { exact } : {}) };
}
