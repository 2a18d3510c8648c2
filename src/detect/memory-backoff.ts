import { retryDelayMs, type RunSettings } from './run-settings';
import type { RunState } from './run-state';

/**
 * The failure backoff of this process, beside the stored one. The backoff is normally kept in
 * the run state (`RetryAt` beside the watermark); when that cannot be written — the data folder
 * is full, the table store fails — a failing job used to be started again on every tick,
 * re-reading all its rows each time. This keeps each job's consecutive failures and retry time
 * in memory too, so the wait holds while the store does not. A success clears it; a restart
 * forgets it (the stored state, when it could be written, is what survives).
 */
export class MemoryBackoff {
  /** `persisted`: the run state holds this very backoff, so a readable run state decides. */
  private readonly jobs = new Map<string, { failures: number; retryAt: Date; persisted: boolean }>();

  /**
   * One more failure of `jobName` at `now`. `stored`: the retry time the run state recorded, when
   * it could be written (kept as it is); without it the wait is computed here from the larger of
   * this process's count of consecutive failures and `failuresBefore` (the run state's, when read).
   * @returns when the timer may start the job again.
   */
  failed(jobName: string, now: Date, settings: Pick<RunSettings, 'retryBaseMs' | 'retryMaxMs'>, stored: Date | undefined, failuresBefore = 0): Date {
    const failures = Math.max(this.jobs.get(jobName)?.failures ?? 0, failuresBefore) + 1;
    const retryAt = stored ?? new Date(now.getTime() + retryDelayMs(failures, settings));
    this.jobs.set(jobName, { failures, retryAt, persisted: stored !== undefined });
    return retryAt;
  }

  /** A run of `jobName` succeeded: no backoff. */
  clear(jobName: string): void {
    this.jobs.delete(jobName);
  }

  /**
   * Whether the timer must leave `jobName` alone at `now`. `stored`: the job's run state, undefined
   * when it could not be read. A readable run state decides for a backoff it holds (an operator may
   * have cleared it there); a backoff it could not take, or an unreadable one, is held from memory.
   */
  holds(jobName: string, now: Date, stored: Pick<RunState, 'retryAt'> | undefined): boolean {
    const entry = this.jobs.get(jobName);
    const memory = entry && !(entry.persisted && stored) ? entry.retryAt : undefined;
    return [stored?.retryAt, memory].some((at) => at != null && at.getTime() > now.getTime());
  }
}
