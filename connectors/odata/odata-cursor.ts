import { decodeOpaqueCursor, encodeOpaqueCursor, invalidCursor } from '../base/paging-cursor';

/**
 * Where a run stands between pages (durable path): the next page's absolute link and what the
 * run fixed at its start — the upper bound of a watermark run, or the stamp of a delta run.
 */
export type RunPosition = { mode: 'watermark'; upper: string; next: string } | { mode: 'delta'; stamp: string; next: string };

/** An opaque cursor (base64url JSON). */
export function encodeCursor(position: RunPosition): string {
  return encodeOpaqueCursor(position);
}

/** @throws PermanentError when the cursor was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string): RunPosition {
  const p = decodeOpaqueCursor(cursor);
  if (typeof p.next === 'string') {
    if (p.mode === 'watermark' && typeof p.upper === 'string') return { mode: 'watermark', upper: p.upper, next: p.next };
    if (p.mode === 'delta' && typeof p.stamp === 'string') return { mode: 'delta', stamp: p.stamp, next: p.next };
  }
  throw invalidCursor();
}
