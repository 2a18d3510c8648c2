import type { ApplicationProperties } from '../../src/bus/message-bus';
import { errorProperties, safeErrorText } from '../../src/bus/message-properties';
import { errorTypeName } from '../../src/platform/errors';
import type { UndecodableMessage } from './service-bus-extension';
import { serviceBusSettler, type ServiceBusSettlementActions } from './service-bus-settler';
import type { MessageSettler } from '../../src/process/message-settler';
import type { BatchSettlement, ReceivedItem } from '../../src/process/received-item';

/**
 * Most settlement (or renewal) calls in flight at once. Service Bus has no multi-message
 * complete: each message is one gRPC call to the host and one AMQP disposition to the broker;
 * a cap keeps a batch of hundreds from opening hundreds of calls at once.
 */
export const SETTLE_CONCURRENCY = 16;

/** `fn` for every item, at most `limit` at a time; results in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Completes items through their own settlers, {@link SETTLE_CONCURRENCY} at a time. One entry
 * per item, in order: `undefined` when completed, else the error (a lost lock, the host gone).
 */
function completeMany(items: readonly ReceivedItem[]): Promise<unknown[]> {
  return mapConcurrently(items, SETTLE_CONCURRENCY, (item) => item.settler.complete().then(() => undefined, (err: unknown) => err));
}

/** The processor's batch settlement on the Functions host's per-message actions. */
export const functionsBatchSettlement: BatchSettlement = { completeMany };

/** Abandons every settler with the same properties (none: left as they are); resolves with one error (or undefined) per settler. */
export function abandonAll(settlers: readonly MessageSettler[], properties?: ApplicationProperties): Promise<unknown[]> {
  return mapConcurrently(settlers, SETTLE_CONCURRENCY, (settler) => settler.abandon(properties).then(() => undefined, (err: unknown) => err));
}

/**
 * Dead-letters each message whose binding data could not be decoded, with the decoding error as
 * reason (its type), description and error properties. One without a lock token cannot be
 * settled: it comes back when its lock expires, and after the queue's `maxDeliveryCount` the
 * broker dead-letters it. Resolves with one entry per message: `undefined` when dead-lettered,
 * else why not.
 */
export function deadLetterUndecodable(undecodable: readonly UndecodableMessage[], actions: ServiceBusSettlementActions, now: Date): Promise<unknown[]> {
  return mapConcurrently(undecodable, SETTLE_CONCURRENCY, async (m) => {
    if (m.lockToken === undefined) return new Error('no lock token in the binding data: left to expire');
    const properties = errorProperties(m.error, now);
    const request = { reason: errorTypeName(m.error), description: safeErrorText(m.error.message), propertiesToModify: properties };
    return serviceBusSettler(actions, m.lockToken).deadLetter(request).then(() => undefined, (err: unknown) => err);
  });
}
