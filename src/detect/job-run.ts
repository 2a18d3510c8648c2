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
  /** Dry runs only: the messages that would have been sent (up to the limit). */
  preview?: QueueMessage[];
}

export function totalSent(run: Pick<JobRunResult, 'sentByQueue'>): number {
  return Object.values(run.sentByQueue).reduce((a, b) => a + b, 0);
}
