import { totalSent, type JobRunResult } from '../detect/job-run';

/**
 * What ExecuteJob answers for a finished run, and what `GET /api/runs/{id}` reports as its
 * `result`: the run's counts, watermarks and times (and the error of a failed run).
 */
export function runResultBody(run: JobRunResult): Record<string, unknown> {
  return {
    job: run.jobName,
    outcome: run.outcome,
    detected: run.detected,
    sent: totalSent(run),
    sentByQueue: run.sentByQueue,
    timeStamps: run.timeStamps,
    watermarkBefore: run.watermarkBefore,
    watermarkAfter: run.watermarkAfter,
    startedAt: run.startedAt.toISOString(),
    endedAt: run.endedAt.toISOString(),
    ...(run.error ? { error: run.error } : {}),
    ...(run.preview ? { preview: run.preview } : {}),
  };
}

/** 200 for a run that succeeded, 500 for one that ran and failed (the body says why). */
export function runResultStatus(run: Pick<JobRunResult, 'outcome'>): number {
  return run.outcome === 'Succeeded' ? 200 : 500;
}
