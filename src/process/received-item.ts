import type { BusMessage } from '../bus/message-bus';
import type { MessageSettler } from './message-settler';

/** One received message of a batch and how to settle it. */
export interface ReceivedItem {
  readonly message: BusMessage;
  readonly settler: MessageSettler;
}

/** How a caller settles a batch beyond each message's own {@link MessageSettler}. */
export interface BatchSettlement {
  /**
   * Completes several messages in one call where the bus can (the local bus: one transaction).
   * Resolves with one entry per item, in order: `undefined` when completed, else the error (e.g.
   * the lock was lost). Default: each item's `settler.complete()`, at most 16 at a time.
   */
  completeMany?(items: readonly ReceivedItem[]): Promise<Array<unknown>>;
}
