import type { Clock } from '../../src/platform/clock';
import type { ProcessResult } from '../../src/process/process-queue-message-service';
import type { BatchSettlement, ReceivedItem } from '../../src/process/received-item';
import { abandonAll } from './batch-settlement';
import { chunkRanges, earliestLockEnd, mayStartChunk } from './lock-budget';

/** What {@link processWithinLocks} needs of the processor. */
export type ExecuteBatch = (items: readonly ReceivedItem[], queue: string, settlement: BatchSettlement) => Promise<ProcessResult[]>;

export interface WithinLocksOptions {
  clock: Clock;
  /** When the invocation received the batch (epoch ms), for locks of unknown expiry. */
  receivedAt: number;
  settlement: BatchSettlement;
  /** Called once when messages are released unprocessed, with how many and when the locks end. */
  onRelease(count: number, lockEnd: Date): void;
}

/**
 * Processes a batch whose locks cannot be renewed, a chunk at a time (lock-budget.ts), each
 * chunk only while at least half a lock is left on the earliest lock it holds. The messages
 * of chunks that may not start any more are abandoned without error properties: they are
 * delivered again at once, with a fresh lock and one more delivery, and, abandoned messages
 * keeping their place, come first in the next batch. Results in the items' order.
 */
export async function processWithinLocks(
  items: readonly ReceivedItem[],
  lockedUntil: ReadonlyArray<{ lockedUntilUtc?: Date }>,
  queue: string,
  execute: ExecuteBatch,
  options: WithinLocksOptions,
): Promise<ProcessResult[]> {
  const results = new Array<ProcessResult>(items.length);
  for (const [from, to] of chunkRanges(items.length)) {
    const lockEnd = earliestLockEnd(lockedUntil.slice(from, to), options.receivedAt);
    if (!mayStartChunk(options.clock.now().getTime(), lockEnd)) {
      options.onRelease(items.length - from, new Date(lockEnd));
      await release(items.slice(from), from, results, lockEnd);
      break;
    }
    const chunk = await execute(items.slice(from, to), queue, options.settlement);
    chunk.forEach((result, i) => (results[from + i] = result));
  }
  return results;
}

async function release(rest: readonly ReceivedItem[], offset: number, results: ProcessResult[], lockEnd: number): Promise<void> {
  const errors = await abandonAll(rest.map((item) => item.settler));
  const error = `not started: less than half a lock left (locks end ${new Date(lockEnd).toISOString()}, not renewable on this host)`;
  errors.forEach((err, i) => {
    results[offset + i] = { outcome: 'Deferred', disposition: 'abandoned', error, ...(err === undefined ? {} : { settleError: String(err) }) };
  });
}
