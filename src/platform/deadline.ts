import type { Clock } from './clock';

/** A point in time work must be done by, e.g. the end of a shutdown's grace period. */
export interface Deadline {
  /** Milliseconds left until the deadline; 0 once it has passed (never negative). */
  remainingMs(): number;
}

/** The deadline `ms` from now on `clock`. */
export function deadlineAfter(clock: Pick<Clock, 'now'>, ms: number): Deadline {
  const at = clock.now().getTime() + ms;
  return { remainingMs: () => Math.max(0, at - clock.now().getTime()) };
}
