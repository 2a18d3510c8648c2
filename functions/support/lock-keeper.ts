import type { Clock } from '../../src/platform/clock';
import type { MessageSettler } from '../../src/process/message-settler';
import { mapConcurrently, SETTLE_CONCURRENCY } from './batch-settlement';
import { RenewalUnsupportedError } from './settlement-client';
import { serviceBusSettler, type ServiceBusSettlementActions } from './service-bus-settler';

/** What the keeper needs of a message: its lock. */
export interface LockedMessage {
  readonly messageId?: unknown;
  readonly lockToken?: string;
  /** The broker's `x-opt-locked-until`, when the binding data carried it. */
  readonly lockedUntilUtc?: Date;
}

export interface LockKeeperOptions {
  clock: Clock;
  /** Time between renewals of every held lock (the processor's 30 s). */
  intervalMs: number;
  /** A lock whose known expiry is nearer than this is renewed at once, not after `intervalMs`. */
  marginMs: number;
  /** Called once per message whose renewal failed (its lock is lost: the broker redelivers it). */
  onLost(message: LockedMessage, err: unknown): void;
  /** Called once when the host turns out to have no `RenewMessageLock`; renewal then stops. */
  onUnsupported(err: RenewalUnsupportedError): void;
}

/** The locks of one batch invocation, renewed until {@link LockKeeper.stop}. */
export interface LockKeeper {
  /** The settler of each message, in order; hand these to the processor. */
  readonly settlers: readonly MessageSettler[];
  /** Resolves once the first renewals (expiring locks, and a probe while support is unknown) are answered. */
  readonly ready: Promise<void>;
  /** Whether the message at `index` is still held: not settled, lock not lost. */
  isHeld(index: number): boolean;
  /** True once renewal turned out impossible: locks then last as the broker granted them. */
  readonly unsupported: boolean;
  stop(): void;
}

interface Held {
  readonly message: LockedMessage;
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
 *   whose lock is known (`lockedUntilUtc`) to end within `marginMs` is renewed at once, and so is
 *   the first message while the host's support for renewal is unknown (one probe per process).
 * - A message stops being renewed when a settlement of it starts, or after a failed renewal.
 * - A host without `RenewMessageLock` stops the loop for good ({@link LockKeeperOptions.onUnsupported}).
 * - The settlers' `renewLock()` does not call the host: it reports this loop's state (waits for
 *   a renewal in flight, rejects once the lock is lost). So the processor's own renewal timer
 *   (`executeBatch`) costs no second call per message.
 */
export function keepLocks(messages: readonly LockedMessage[], actions: ServiceBusSettlementActions, options: LockKeeperOptions): LockKeeper {
  const held: Held[] = messages.map((message) => ({ message, actions: serviceBusSettler(actions, message.lockToken ?? ''), settled: false }));
  let stopped = false;
  let unsupported = actions.renewalSupport === 'unsupported';

  const renew = async (h: Held): Promise<void> => {
    const renewing = h.actions.renewLock().then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof RenewalUnsupportedError) {
          if (!unsupported) {
            unsupported = true;
            cancelEvery();
            options.onUnsupported(err);
          }
          return;
        }
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
  const renewAll = (which: (h: Held, index: number) => boolean): Promise<unknown> => {
    if (stopped || unsupported || round) return round ?? Promise.resolve();
    const due = held.filter((h, i) => !h.settled && h.lost === undefined && which(h, i));
    if (due.length === 0) return Promise.resolve();
    round = mapConcurrently(due, SETTLE_CONCURRENCY, (h) => (stopped || unsupported || h.settled ? Promise.resolve() : renew(h))).finally(() => {
      round = undefined;
    });
    return round;
  };

  const cancelEvery = unsupported ? () => undefined : options.clock.every(options.intervalMs, () => void renewAll(() => true));
  const now = options.clock.now().getTime();
  const probe = actions.renewalSupport === 'unknown';
  const expiresSoon = (h: Held) => h.message.lockedUntilUtc !== undefined && h.message.lockedUntilUtc.getTime() - now < options.marginMs;
  const ready = renewAll((h, i) => (probe && i === 0) || expiresSoon(h)).then(() => undefined);

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
    ready,
    isHeld: (index) => !held[index].settled && held[index].lost === undefined,
    get unsupported() {
      return unsupported;
    },
    stop: () => {
      stopped = true;
      cancelEvery();
    },
  };
}
