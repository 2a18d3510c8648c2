import type { JobRunResult } from '../../detect/job-run';

/** The fields of a run that say how it ended (see docs/long-runs.md). */
export type RunEnding = Pick<JobRunResult, 'outcome' | 'retryAt' | 'stoppedEarly' | 'interrupted'>;

/**
 * A run's outcome as a reader needs it, for `highwater runs` and the status page: a failed run
 * says when the timer tries the job again (failure backoff), a run cut by the time budget that it
 * stopped there (the next tick continues it), one stopped by a full queue (backpressure), and a run that never recorded its end that it was
 * interrupted — all three are otherwise only visible in `--json`.
 */
export function runOutcomeText(run: RunEnding): string {
  if (run.interrupted) return 'Interrupted';
  if (run.outcome === 'Failed') return run.retryAt ? `Failed (retrying at ${formatUtc(run.retryAt)})` : 'Failed';
  if (run.stoppedEarly === 'timeBudget') return 'Stopped (time budget)';
  if (run.stoppedEarly === 'backpressure') return 'Stopped (backpressure)';
  return run.outcome;
}

/** `2026-01-01 12:00:00Z`: seconds are enough for a retry time. */
function formatUtc(at: Date): string {
  return at.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
