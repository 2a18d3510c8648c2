import type { Clock } from '../platform/clock';
import { FINAL_DISPOSITIONS, type HostStats } from './host-stats';

/** How `start --once` stopped waiting for the work queues. */
export type OnceEnd = 'drained' | 'stalled' | 'timeout';

/** Default of `--stall-timeout`: seconds without progress after which `start --once` gives up. */
export const DEFAULT_STALL_SECONDS = 60;

export interface OnceWaitOptions {
  clock: Clock;
  /** Whether the work queues drain within `timeoutMs` (the host's `drained`); may throw the worker's failure. */
  drained: (timeoutMs: number) => Promise<boolean>;
  /** A count that grows each time a message ends in a final place (see {@link settledCount}). */
  settled: () => number;
  /** Without progress for this long, stop waiting: `stalled`. */
  stallMs: number;
  /** Stop waiting after this long in any case: `timeout`. */
  timeoutMs: number;
  /** How long one look at the queues may wait for them to drain, ms. Default 1,000. */
  lookMs?: number;
}

/**
 * Waits until the work queues drain, or until nothing has progressed for `stallMs` (a target in
 * outage, a missing secret: the messages wait in their queues for a fix, which a `--once` run
 * must not wait for), or until `timeoutMs`. Progress is a message that reached a final place
 * (applied, superseded, ignored, parked, dead-lettered); a message deferred or retried again is
 * no progress, however often it comes back.
 */
export async function waitForDrainOrStall(options: OnceWaitOptions): Promise<OnceEnd> {
  const { clock } = options;
  const began = clock.now().getTime();
  let lastProgressAt = began;
  let settled = options.settled();
  for (;;) {
    if (await options.drained(options.lookMs ?? 1_000)) return 'drained';
    const now = clock.now().getTime();
    const current = options.settled();
    if (current !== settled) {
      settled = current;
      lastProgressAt = now;
    }
    if (now - began >= options.timeoutMs) return 'timeout';
    if (now - lastProgressAt >= options.stallMs) return 'stalled';
  }
}


/** Messages that ended in a final place since the host started (the progress {@link waitForDrainOrStall} looks for). */
export function settledCount(stats: Pick<HostStats, 'dispositions'>): number {
  return [...FINAL_DISPOSITIONS].reduce((n, d) => n + (stats.dispositions.get(d) ?? 0), 0);
}
