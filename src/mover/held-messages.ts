import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { MessageBus, ReceivedMessage } from '../bus/message-bus';

interface Held {
  message: ReceivedMessage;
  lockedUntil: Date;
  /** Renew once this time has passed (half way through the lock). */
  renewAt: Date;
}

/**
 * Messages received but left alone by the run. Their locks are kept (renewed half way through)
 * so that the next receive returns later messages instead of these again; at the end they are
 * released (abandoned), which makes them available at once. If the process dies instead, their
 * locks expire and they become available all the same.
 */
export class HeldMessages {
  readonly #held: Held[] = [];
  #released = 0;
  readonly releaseErrors: string[] = [];

  constructor(
    private readonly bus: MessageBus,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** Messages released so far. */
  get released(): number {
    return this.#released;
  }

  add(message: ReceivedMessage): void {
    this.#held.push({ message, lockedUntil: message.lockedUntil, renewAt: this.halfWay(message.lockedUntil) });
  }

  /** Renews the locks that are past half their time; a lock that cannot be renewed is let go. */
  async renewExpiring(): Promise<void> {
    const now = this.clock.now();
    for (let i = this.#held.length - 1; i >= 0; i--) {
      const entry = this.#held[i];
      if (entry.renewAt > now) continue;
      try {
        entry.lockedUntil = await this.bus.renewLock(entry.message);
        entry.renewAt = this.halfWay(entry.lockedUntil);
      } catch {
        // Lost (expired): the message is available again and may be received again; nothing to release.
        this.#held.splice(i, 1);
      }
    }
  }

  /** Abandons every held message; failures are recorded, their locks expire on their own. */
  async releaseAll(): Promise<void> {
    const all = this.#held.splice(0);
    for (const { message } of all) {
      try {
        await this.bus.abandon(message);
        this.#released++;
      } catch (err) {
        this.releaseErrors.push(`message ${message.messageId} (#${message.sequenceNumber}): ${errorMessage(err)}`);
      }
    }
  }

  private halfWay(lockedUntil: Date): Date {
    const now = this.clock.now().getTime();
    return new Date(now + Math.max(0, lockedUntil.getTime() - now) / 2);
  }
}
