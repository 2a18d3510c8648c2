/**
 * How a batch is kept within its locks when the host cannot renew them (a Service Bus extension
 * without `RenewMessageLock`): a lock then lasts what the broker granted at receive (the queues'
 * one minute), and a batch that outlives it loses every settlement: its messages come back
 * with one more delivery, and those already applied are applied again.
 */

/** Without renewal the batch is processed this many messages at a time. */
const NO_RENEWAL_CHUNK_SIZE = 32;

/**
 * A chunk starts only with at least this much left of the earliest lock it holds (half the
 * queues' lock): what is left of the batch after that is abandoned, to come back at once.
 */
export const NO_RENEWAL_MIN_LEFT_MS = 30_000;

/** The queues' lock duration (infra/modules/service-bus.bicep), assumed when a message carries no `x-opt-locked-until`. */
const ASSUMED_LOCK_MS = 60_000;

/** When the first of these locks ends (epoch ms): the earliest known `lockedUntilUtc`, else `receivedAt` plus {@link ASSUMED_LOCK_MS}. */
export function earliestLockEnd(messages: ReadonlyArray<{ lockedUntilUtc?: Date }>, receivedAt: number): number {
  let end = Infinity;
  for (const m of messages) end = Math.min(end, m.lockedUntilUtc?.getTime() ?? receivedAt + ASSUMED_LOCK_MS);
  return Number.isFinite(end) ? end : receivedAt + ASSUMED_LOCK_MS;
}

/** The batch's chunks: index ranges of {@link NO_RENEWAL_CHUNK_SIZE}. */
export function chunkRanges(length: number, size = NO_RENEWAL_CHUNK_SIZE): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let from = 0; from < length; from += size) ranges.push([from, Math.min(from + size, length)]);
  return ranges;
}

/** Whether a chunk whose earliest lock ends at `lockEnd` may start at `now`. */
export function mayStartChunk(now: number, lockEnd: number): boolean {
  return lockEnd - now >= NO_RENEWAL_MIN_LEFT_MS;
}
