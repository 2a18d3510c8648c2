import type { Clock } from '../../src/platform/clock';

/**
 * How long a batch is held, locks renewed, while the runtime cannot be created (storage
 * unreachable, role assignments still propagating, configuration unreadable), before its
 * messages are abandoned. Abandoning costs each message a delivery and the host's batch loop
 * receives them again at once: ten quick failures would dead-letter the whole backlog. Held for
 * 15 minutes, ten deliveries last at least two and a half hours of outage. host.json's
 * `functionTimeout` (30 min) leaves the batch time to be processed after the hold.
 */
export const STARTUP_HOLD_MS = 15 * 60_000;

/**
 * The wait after the `attempt`-th failed attempt to create the runtime: 5 s, doubling, at most
 * a minute (5, 10, 20, 40, 60, 60, … s).
 */
export function startupRetryDelayMs(attempt: number): number {
  const n = Number.isFinite(attempt) && attempt >= 1 ? Math.floor(attempt) : 1;
  return Math.min(5_000 * 2 ** Math.min(n - 1, 10), 60_000);
}

export interface HoldOptions {
  clock: Clock;
  /**
   * The last moment (epoch ms) to try; asked after every failure, since it may shrink (the host
   * turned out not to renew locks).
   */
  deadline(): number;
  /** False once no message of the batch is held any more (all locks lost): holding is pointless then. */
  stillHeld(): boolean;
  /** Called before each wait, with the failure, the number of failures so far and the wait. */
  onRetry(err: unknown, attempt: number, delayMs: number): void;
}

/**
 * `create()`, tried again after {@link startupRetryDelayMs} until it succeeds or the deadline
 * has passed; the last wait is cut to end at the deadline, where one last attempt is made.
 * @throws the last failure of `create()`.
 */
export async function holdUntilCreated<T>(create: () => Promise<T>, options: HoldOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (err) {
      const left = options.deadline() - options.clock.now().getTime();
      if (left <= 0 || !options.stillHeld()) throw err;
      const delayMs = Math.min(startupRetryDelayMs(attempt), left);
      options.onRetry(err, attempt, delayMs);
      await options.clock.sleep(delayMs);
    }
  }
}
