import type { BusMessage, MessageBus, SubQueue } from '../bus/message-bus';

/**
 * The fixed set of messages a run works on, read by peeking (no lock, no delivery counted).
 * Messages that arrive after the peek have higher sequence numbers than {@link Snapshot.lastSequence}
 * and are never acted on.
 */
export interface Snapshot {
  /** Every message peeked, in sequence order (in scope or not). */
  peeked: BusMessage[];
  /** The messages the run considers: those in scope, at most `max`. */
  inScope: BusMessage[];
  /** Highest sequence number peeked (undefined for an empty queue). */
  lastSequence?: bigint;
  /** Whether peeking stopped at `max` before the end of the queue. */
  truncated: boolean;
}

export interface SnapshotOptions {
  queue: string;
  subQueue?: SubQueue;
  /** Which messages the run considers (`--job`, `--older-than`); the others are left alone. */
  inScope: (message: BusMessage) => boolean;
  /** Most messages considered (`--max`); peeking stops once this many are in scope. */
  max?: number;
  /** Messages per peek. Default 100. */
  pageSize?: number;
}

export async function takeSnapshot(bus: MessageBus, options: SnapshotOptions): Promise<Snapshot> {
  const pageSize = options.pageSize ?? 100;
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const peeked: BusMessage[] = [];
  const inScope: BusMessage[] = [];
  let from = 0n;
  let truncated = false;
  for (;;) {
    const page = await bus.peek(options.queue, { subQueue: options.subQueue, fromSequenceNumber: from.toString(), maxMessages: pageSize });
    // Sorted and bounded defensively: the port promises messages at or after `from`, oldest first.
    const fresh = page.filter((m) => BigInt(m.sequenceNumber) >= from).sort((a, b) => compareSequence(a.sequenceNumber, b.sequenceNumber));
    if (fresh.length === 0) break;
    for (const message of fresh) {
      if (inScope.length >= max) {
        truncated = true;
        break;
      }
      peeked.push(message);
      if (options.inScope(message)) inScope.push(message);
    }
    if (truncated) break;
    from = BigInt(fresh[fresh.length - 1].sequenceNumber) + 1n;
  }
  const last = peeked.at(-1);
  return { peeked, inScope, lastSequence: last === undefined ? undefined : BigInt(last.sequenceNumber), truncated };
}

function compareSequence(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
