import type { ApplicationProperties, DeadLetterOptions } from '../bus/message-bus';

/**
 * Settles one received message. The local host implements it on the MessageBus port; the
 * Functions app on the Service Bus trigger's `actions`. Every method may throw when the lock was
 * lost; the broker then redelivers the message, so nothing is lost.
 */
export interface MessageSettler {
  complete(): Promise<void>;
  /** Releases the message for redelivery, setting the given properties on it. */
  abandon(propertiesToModify?: ApplicationProperties): Promise<void>;
  deadLetter(options: DeadLetterOptions): Promise<void>;
  renewLock(): Promise<void>;
}
