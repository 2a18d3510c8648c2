import type { BusMessage } from '../../bus/message-bus';
import { ERROR_PROPERTY } from '../../bus/message-properties';
import { deliveryBackoffMs } from '../backoff';

/** Attempts before a message that keeps failing is dead-lettered: the queues' `maxDeliveryCount`. */
export const DEFAULT_MAX_ATTEMPTS = 10;

/**
 * The attempt this delivery is: the attempt its retry copy was made for (1 for an original), plus
 * the broker's redeliveries of this very message (a crash or a lost lock before it was settled).
 */
export function attemptOf(message: Pick<BusMessage, 'deliveryCount' | 'applicationProperties'>): number {
  const carried = Number(message.applicationProperties[ERROR_PROPERTY.attempt]);
  const base = Number.isSafeInteger(carried) && carried >= 1 ? carried : 1;
  const redeliveries = Number.isFinite(message.deliveryCount) && message.deliveryCount > 1 ? Math.floor(message.deliveryCount) - 1 : 0;
  return base + redeliveries;
}

/**
 * When the retry after a failed attempt `attempt` becomes visible: the spec's backoff for the
 * next attempt, `(attempt + 1)² · 1000 ms` (attempt 1 failed → 4 s, 2 → 9 s, …), or the target's
 * `Retry-After` when that is longer. The copy waits in the broker, never in a processing slot.
 */
export function retryAt(attempt: number, now: Date, retryAfterMs?: number): Date {
  const backoff = deliveryBackoffMs(attempt + 1);
  const asked = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  return new Date(now.getTime() + Math.max(backoff, asked));
}
