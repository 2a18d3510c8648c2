import { BusError, type ApplicationProperties, type DeadLetterOptions, type ReceivedMessage } from '../message-bus';
import { lockLostError, lockRefOf } from './bus-arguments';
import type { MessageStore } from './message-store';
import type { QueueInfo } from './queue-catalog';
import type { QueueNotifier } from './queue-notifier';
import type { TransactionBatcher } from './transaction-batcher';

/** What settling needs of the bus that owns the store. */
export interface SettlementOwner {
  readonly batcher: TransactionBatcher;
  readonly store: MessageStore;
  readonly notifier: QueueNotifier;
  /** The bus clock, epoch ms. */
  now(): number;
  /** A declared queue. @throws BusError when the bus is closed or the queue is not declared. */
  queue(name: string): QueueInfo;
}

/**
 * Renewing, abandoning and dead-lettering a received message on the local bus: each checks the
 * message's lock token in its own transaction; completion is in completions.ts (it has
 * bookkeeping of its own). A message made available again wakes the receivers of its queue (or
 * of its dead-letter subqueue) once the transaction committed.
 */
export class Settlement {
  constructor(private readonly owner: SettlementOwner) {}

  /** @returns the new locked-until time. @throws BusError `LockLost` when the lock was lost. */
  async renewLock(message: ReceivedMessage): Promise<Date> {
    const ref = lockRefOf(message);
    const info = this.owner.queue(message.queue);
    const { batcher, store } = this.owner;
    const until = await batcher.run(() => store.renew(info, ref, this.owner.now()));
    if (until === undefined) throw lockLostError(message);
    return new Date(until);
  }

  /** @throws BusError `LockLost` when the lock was lost. */
  async abandon(message: ReceivedMessage, propertiesToModify?: ApplicationProperties): Promise<void> {
    const ref = lockRefOf(message);
    const info = this.owner.queue(message.queue);
    const { batcher, store, notifier } = this.owner;
    const outcome = await batcher.run(() => {
      const result = store.abandon(info, ref, this.owner.now(), propertiesToModify);
      if (result !== 'lockLost') batcher.afterCommit(() => notifier.notify(info.name, result === 'deadLettered' || !!message.subQueue));
      return result;
    });
    if (outcome === 'lockLost') throw lockLostError(message);
  }

  /**
   * Moves the message to the dead-letter subqueue; durable like a send (see commit-sync.ts).
   * @throws BusError `InvalidArgument` without a reason or for a message already dead-lettered,
   *   `LockLost` when the lock was lost.
   */
  async deadLetter(message: ReceivedMessage, options: DeadLetterOptions): Promise<void> {
    const ref = lockRefOf(message);
    const info = this.owner.queue(message.queue);
    if (typeof options?.reason !== 'string' || options.reason === '') {
      throw new BusError('InvalidArgument', 'options.reason must be a non-empty string');
    }
    const { reason, description, propertiesToModify } = options;
    const { batcher, store, notifier } = this.owner;
    const outcome = await batcher.run(() => {
      const result = store.deadLetter(ref, this.owner.now(), reason, description, propertiesToModify);
      if (result !== 'deadLettered') return result;
      batcher.afterCommit(() => notifier.notify(info.name, true));
      batcher.durable();
      return result;
    });
    if (outcome === 'lockLost') throw lockLostError(message);
    if (outcome === 'alreadyDead') {
      throw new BusError('InvalidArgument', `Message ${ref.seq} is already in the dead-letter subqueue of "${message.queue}"`);
    }
  }
}
