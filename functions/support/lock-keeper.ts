import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { Clock } from '../../src/platform/clock';
import type { MessageSettler } from '../../src/process/message-settler';
import { mapConcurrently, SETTLE_CONCURRENCY } from './batch-settlement';
import { serviceBusSettler, type ServiceBusSettlementActions } from './service-bus-settler';

export interface LockKeeperOptions {
  clock: Clock;
  /** Time between renewals of every held lock (the processor's 30 s). */
  intervalMs: number;
  /** A lock whose known expiry is nearer than this is renewed at once, not after `intervalMs`. */
  marginMs: number;
  /** Called once per message whose renewal failed (its lock is lost: the broker redelivers it). */
  onLost(message: ServiceBusReceivedMessage, err: unknown): void;
}

/** The locks of one batch invocation, renewed until {@link LockKeeper.stop}. */
export interface LockKeeper {
  /** The settler of each message, in order; hand these to the processor. */
  readonly settlers: readonly MessageSettler[];
  stop(): void;
}

interface Held {
  readonly message: ServiceBusReceivedMessage;
  readonly actions: MessageSettler;
  settled: boolean;
  lost?: unknown;
  renewing?: Promise<void>;
}

/**
 * The one lock-renewal loop of a batch invocation. The host does not renew locks for batch
 * triggers, and a cold start (`getRuntime()`) can take longer than a lock lasts: so the trigger
 * starts this before anything slow and stops it only when the invocation ends.
 *
 * - Every `intervalMs` each held message is renewed, {@link SETTLE_CONCURRENCY} at a time; one
 *   whose lock is known (`lockedUntilUtc`) to end within `marginMs` is renewed at once.
 * - A message stops being renewed when a settlement of it starts, or after a failed renewal.
 * - The settlers' `renewLock()` does not call the host: it reports this loop's state (waits for
 *   a renewal in flight, rejects once the lock is lost). So the processor's own renewal timer
 *   (`executeBatch`) costs no second call per message.
 */
export function keepLocks(messages: readonly ServiceBusReceivedMessage[], actions: ServiceBusSettlementActions, options: LockKeeperOptions): LockKeeper {
  const held: Held[] = messages.map((message) => ({ message, actions: serviceBusSettler(actions, message), settled: false }));
  let stopped = false;

  const renew = async (h: Held): Promise<void> => {
    const renewing = h.actions.renewLock().then(
      () => undefined,
      (err: unknown) => {
        h.lost = err;
        // A renewal that races the message's settlement fails harmlessly: not reported.
        if (!h.settled) options.onLost(h.message, err);
      },
    );
    h.renewing = renewing;
    await renewing;
    if (h.renewing === renewing) h.renewing = undefined;
  };
  let round: Promise<unknown> | undefined;
  const renewAll = (which: (h: Held) => boolean) => {
    if (stopped || round) return;
    const due = held.filter((h) => !h.settled && h.lost === undefined && which(h));
    if (due.length === 0) return;
    round = mapConcurrently(due, SETTLE_CONCURRENCY, (h) => (stopped || h.settled ? Promise.resolve() : renew(h))).finally(() => {
      round = undefined;
    });
  };

  const cancelEvery = options.clock.every(options.intervalMs, () => renewAll(() => true));
  const now = options.clock.now().getTime();
  const expiresSoon = (h: Held) => h.message.lockedUntilUtc !== undefined && h.message.lockedUntilUtc.getTime() - now < options.marginMs;
  renewAll(expiresSoon);

  const settlers = held.map((h): MessageSettler => {
    const settle = <T>(fn: () => Promise<T>): Promise<T> => {
      h.settled = true;
      return fn();
    };
    return {
      complete: () => settle(() => h.actions.complete()),
      abandon: (properties) => settle(() => h.actions.abandon(properties)),
      deadLetter: (options) => settle(() => h.actions.deadLetter(options)),
      renewLock: async () => {
        await h.renewing;
        if (h.lost !== undefined) throw h.lost;
      },
    };
  });
  return {
    settlers,
    stop: () => {
      stopped = true;
      cancelEvery();
    },
  };
}
