import type { MessageBus, ReceivedMessage } from '../bus/message-bus';
import type { MessageSettler } from './message-settler';

/** Settles a message received from a {@link MessageBus} (local host, dead-letter mover, tests). */
export function busSettler(bus: MessageBus, message: ReceivedMessage): MessageSettler {
  return {
    complete: () => bus.complete(message),
    abandon: (properties) => bus.abandon(message, properties),
    deadLetter: (options) => bus.deadLetter(message, options),
    renewLock: async () => {
      const until = await bus.renewLock(message);
      message.lockedUntil = until;
    },
  };
}
