import { totalSent, type JobRunResult } from '../../detect/job-run';
import { runOutcomeText } from './run-outcome';
import type { RunStatus } from './status-model';

/** A run as the page shows it. */
export function runStatus(run: JobRunResult): RunStatus {
  return {
    job: run.jobName,
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    durationMs: run.endedAt.getTime() - run.startedAt.getTime(),
    detected: run.detected,
    sent: totalSent(run),
    outcome: run.outcome,
    outcomeText: runOutcomeText(run),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** A run that found nothing: succeeded, detected nothing, sent nothing, finished its read. */
function isNoOp(run: JobRunResult): boolean {
  return run.outcome === 'Succeeded' && run.detected === 0 && totalSent(run) === 0 && !run.stoppedEarly && !run.interrupted && !run.skipped;
}

/**
 * The "Recent runs" rows, newest first: a job's runs that found nothing since its last run that
 * did something become one row (`collapsed`: how many, since when). Each job runs every 10 s in
 * the demo, so without this a 2,000-row run was pushed off the page within a minute by rows of
 * zeros. `runs` newest first; at most `limit` rows.
 */
export function recentRunRows(runs: readonly JobRunResult[], limit: number): RunStatus[] {
  const rows: RunStatus[] = [];
  /** Per job, the no-op row still taking older no-op runs (closed by a run that did something). */
  const open = new Map<string, RunStatus>();
  for (const run of runs) {
    // Once the rows are full, older runs only extend the no-op rows still open.
    const full = rows.length >= limit;
    if (!isNoOp(run)) {
      open.delete(run.jobName);
      if (!full) rows.push(runStatus(run));
      continue;
    }
    const row = open.get(run.jobName);
    if (row) {
      row.collapsed = { runs: (row.collapsed?.runs ?? 1) + 1, since: run.startedAt.toISOString() };
      continue;
    }
    if (full) continue;
    const created = runStatus(run);
    rows.push(created);
    open.set(run.jobName, created);
  }
  return rows;
}
