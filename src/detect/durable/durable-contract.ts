/**
 * The durable detection path (docs/architecture.md, Detection): names and the JSON shapes that cross the
 * Durable Task engine (orchestration input/output, activity input/output). Everything here is
 * serialized by the engine between steps, so it holds plain JSON only.
 */

export const GET_CHANGES_ORCHESTRATOR = 'GetChangesOrchestrator';
export const GET_CHANGES_ACTIVITY = 'GetChangesActivity';
export const JOB_STATE_ENTITY = 'JobState';
/** One entity instance holds the in-progress set of all jobs. */
export const JOB_STATE_KEY = 'jobs';

/** Records read per activity call when the job sets no `pageSize` (the spec's `MaxBatchSize`). */
export const MAX_BATCH_SIZE = 3;

/** Orchestration input: the jobs to run, in order (resolved by the starter). */
export interface GetChangesInput {
  jobs: string[];
  /**
   * Set only by the orchestration itself when it continues as new (never by the starter, whose
   * request body is read by `resolveGetChangesInput`): where the previous generation stopped.
   */
  resume?: GetChangesResume;
}

/**
 * A generation's hand-over to the next (`continueAsNew` keeps the instance id, so the job's
 * JobState lease stays with it). The job at `jobs[done.length]` is held and continues at `next`.
 */
export interface GetChangesResume {
  startedAt: string;
  /** Results of the jobs before the current one. */
  done: JobOrchestrationResult[];
  /** The current job's result so far. */
  current: JobOrchestrationResult;
  /** The current job's next page. */
  next: JobActivityParam;
  /** When its lease was last renewed (ms since the epoch, from the engine's clock). */
  renewedAt: number;
}

/** Activity input (the spec's `JobActivityParam`). */
export interface JobActivityParam {
  jobName: string;
  /** 0 for the first page of a run. */
  pageNumber: number;
  /** Paging cookie returned by the previous page; absent on the first page. */
  cursor?: string;
  /** Watermark the run started from (the lower bound; returned by the first page). */
  startWatermark?: string | null;
  /** Watermark advanced over the pages read so far. */
  watermark?: string | null;
  /** The job's resync token as the first page read it (returned by the first page). */
  resync?: string | null;
}

/** Activity output: one page read and sent. */
export interface JobActivityResult {
  jobName: string;
  /** The page number that was read (the input's `pageNumber`). */
  page: number;
  /** Paging cookie for the next page; null when the source returned nothing. */
  cursor: string | null;
  startWatermark: string | null;
  /** The job's resync token (WatermarkRecord.resync), read on the first page; carried by every message. */
  resync?: string | null;
  /** Watermark advanced over this page (never persisted on the durable path). */
  watermark: string | null;
  hasMoreRecord: boolean;
  /** Changes read on this page (sent + timestamp-only). */
  detected: number;
  /** Messages sent to the job's work queue. */
  sent: number;
  /** Rows skipped under `skipFailedRows` (absent when none); the first few, with why. */
  skipped?: number;
  skippedRows?: Array<{ sourceKey: string | null; changeTracker: string; error: string }>;
}

type JobOrchestrationOutcome = 'Succeeded' | 'Failed' | 'Skipped';

export interface JobOrchestrationResult {
  jobName: string;
  /** `Skipped`: another orchestration had the job in progress. */
  outcome: JobOrchestrationOutcome;
  pages: number;
  detected: number;
  sent: number;
  /** Where the watermark would stand after the run (not persisted). */
  watermark: string | null;
  /** Rows skipped under `skipFailedRows` (absent when none). */
  skipped?: number;
  error?: string;
}

/** Orchestration output. Times come from the engine's replay-safe clock. */
export interface GetChangesOutput {
  startedAt: string;
  endedAt: string;
  jobs: JobOrchestrationResult[];
}

/** Custom status while running: the job and page being read. */
export interface GetChangesStatus {
  jobName: string;
  page: number;
}

/** A `JobState` operation's input (job-state.ts): the job, the calling orchestration and its replay-safe time. */
export interface JobStateRequest {
  job: string;
  /** The orchestration instance id. */
  owner?: string;
  /** ISO 8601: `currentUtcDateTime` of the calling orchestration. */
  at?: string;
}
