import type { ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';
import type { Clock } from '../../platform/clock';

/** An SDK message received in peek-lock mode and the receiver that must settle it. */
export interface HeldLock {
  message: ServiceBusReceivedMessage;
  receiver: ServiceBusReceiver;
}

/** How long past its lock expiry an unsettled delivery is remembered (its settle then fails with LockLost at the broker). */
const FORGET_AFTER_MS = 10 * 60 * 1000;

/**
 * Settlement needs the SDK's message object (it holds the AMQP delivery), while callers hold the
 * port's plain {@link ReceivedMessage}. This maps lock tokens to the SDK deliveries; settled
 * deliveries are removed, abandoned ones that nobody settled are forgotten some time after their
 * lock expired, so the map cannot grow without bound.
 */
export class HeldLocks {
  readonly #byToken = new Map<string, HeldLock>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  get size(): number {
    return this.#byToken.size;
  }

  add(lockToken: string, held: HeldLock): void {
    this.#byToken.set(lockToken, held);
  }

  get(lockToken: string): HeldLock | undefined {
    return this.#byToken.get(lockToken);
  }

  delete(lockToken: string): void {
    this.#byToken.delete(lockToken);
  }

  clear(): void {
    this.#byToken.clear();
  }

  /** Drops deliveries whose lock expired long ago (call once per receive, not per message). */
  forgetExpired(): void {
    const cutoff = this.clock.now().getTime() - FORGET_AFTER_MS;
    for (const [token, held] of this.#byToken) {
      const lockedUntil = held.message.lockedUntilUtc?.getTime() ?? 0;
      if (lockedUntil < cutoff) this.#byToken.delete(token);
    }
  }
}
