import type { QueueMessage } from '../model/queue-message';
import type { SkippedRowsRecord } from './skipped-rows';

/** The record of one job run (also written to the `runs` table). */
export interface JobRunResult extends SkippedRowsRecord {
  jobName: string;
  /** `scheduled` (timer), `manual` (ExecuteJob / CLI), `dryRun`. */
  trigger: 'scheduled' | 'manual' | 'dryRun';
  startedAt: Date;
  endedAt: Date;
  /** Changes read from the source (sent + timestamp-only). */
  detected: number;
  /** Messages sent, per queue. */
  sentByQueue: Record<string, number>;
  /** Timestamp-only changes: advanced the watermark, sent nothing. */
  timeStamps: number;
  watermarkBefore: string | null;
  /** Equal to `watermarkBefore` when the run failed or was a dry run. */
  watermarkAfter: string | null;
  outcome: 'Succeeded' | 'Failed';
  error?: string;
  /** Started from a resume cursor: the previous run of this job did not finish. */
  resumed?: boolean;
  /**
   * Stopped before the read was done, the resume cursor saved: by the time budget (`timeBudget`:
   * the next tick continues) or because the job's queue was full (`backpressure`: the timer's pass
   * continues once the queue has room; see queue-room.ts).
   */
  stoppedEarly?: StopReason;
  /** A run that began and never recorded its end (killed, timed out), recorded by the next run. */
  interrupted?: boolean;
  /** Failed runs: the timer does not start the job again before this (failure backoff). */
  retryAt?: Date;
  /** Dry runs only: the messages that would have been sent (up to the limit). */
  preview?: QueueMessage[];
}

/** Why a run stopped at a page boundary before reading its source to the end. */
export type StopReason = 'timeBudget' | 'backpressure';

export function totalSent(run: Pick<JobRunResult, 'sentByQueue'>): number {
  return Object.values(run.sentByQueue).reduce((a, b) => a + b, 0);
}
