import { BusError, isBusError, type ReceivedMessage } from '../message-bus';
import { toBusError } from './error-mapping';

/**
 * Settlements in flight at once for one `completeMany`. Service Bus settles one message per
 * AMQP disposition, so a batch is as fast as the round trips that overlap; 16 keeps a batch of
 * hundreds from flooding the link (and the broker's per-connection throttling) while hiding
 * most of the latency.
 */
export const SETTLE_CONCURRENCY = 16;

/** Settles one message; rejects with a BusError (already translated from the SDK's). */
export type SettleOne = (message: ReceivedMessage) => Promise<void>;

/**
 * Settles every message with at most `limit` calls of `settle` in flight; resolves with one entry
 * per message, in order: undefined when settled, else its BusError. One failure never stops the
 * others. The same delivery twice (by lock token) is settled once: the later entry is
 * `LockLost` without a call, as the second settlement would be at the broker, and so no two
 * dispositions race on one delivery.
 * @throws BusError `Unavailable` (the first) when every message failed with `Unavailable`: the
 * bus could not be reached at all, and the caller should treat the call as one failure.
 */
export async function settleConcurrently(
  messages: readonly ReceivedMessage[],
  settle: SettleOne,
  limit: number = SETTLE_CONCURRENCY,
): Promise<Array<BusError | undefined>> {
  if (!Array.isArray(messages)) throw new BusError('InvalidArgument', 'messages must be an array');
  const results = new Array<BusError | undefined>(messages.length).fill(undefined);
  const work = plan(messages, results);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < work.length) {
      const index = work[next++];
      results[index] = await settle(messages[index]).then(
        () => undefined,
        // `settle` translates already; the table again for anything that escaped it.
        (err: unknown) => toBusError(err, { operation: 'completeMany', queue: messages[index].queue }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, work.length) }, worker));
  if (results.length > 0 && results.every((r) => isBusError(r, 'Unavailable'))) throw results[0];
  return results;
}

/** Indexes to settle; entries that need no call (malformed, repeated) get their error now. */
function plan(messages: readonly ReceivedMessage[], results: Array<BusError | undefined>): number[] {
  const seen = new Set<string>();
  const work: number[] = [];
  messages.forEach((message, index) => {
    const token = typeof message === 'object' && message !== null ? message.lockToken : undefined;
    if (typeof token !== 'string' || token === '') {
      results[index] = new BusError('InvalidArgument', `messages[${index}] must be a message received from this bus`);
    } else if (seen.has(token)) {
      results[index] = new BusError('LockLost', `messages[${index}] repeats the delivery of an earlier entry (lock token settled by it)`);
    } else {
      seen.add(token);
      work.push(index);
    }
  });
  return work;
}
