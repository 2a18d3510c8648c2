import { PermanentError } from '../../src/model/errors';

/**
 * Where a run stands between pages (durable path): the next page's absolute link and what the
 * run fixed at its start — the upper bound of a watermark run, or the stamp of a delta run.
 */
export type RunPosition = { mode: 'watermark'; upper: string; next: string } | { mode: 'delta'; stamp: string; next: string };

/** An opaque cursor (base64url JSON). */
export function encodeCursor(position: RunPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, ...position }), 'utf8').toString('base64url');
}

/** @throws PermanentError when the cursor was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string): RunPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const p = (parsed ?? {}) as Record<string, unknown>;
  if (p.v === 1 && typeof p.next === 'string') {
    if (p.mode === 'watermark' && typeof p.upper === 'string') return { mode: 'watermark', upper: p.upper, next: p.next };
    if (p.mode === 'delta' && typeof p.stamp === 'string') return { mode: 'delta', stamp: p.stamp, next: p.next };
  }
  throw new PermanentError('invalid paging cursor');
}
