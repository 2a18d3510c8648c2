/**
 * Where an unfinished run stopped: the position after the last page whose messages were all
 * flushed to the bus. Stored beside the watermark (same entity) so that one read gives both; the
 * spec's rule stays: the watermark itself is written only when a run finishes.
 */
export interface ResumeCursor {
  /** The watermark the run had advanced to (canonical): a resumed run that finishes writes at least this. */
  changeTracker: string | null;
  /** Source key of the last row flushed (shown to operators; the position below is what resumes). */
  sourceKey: string | null;
  /** The source's opaque position after that row (`SourcePage.cursor`). */
  position: string;
  /** What the position belongs to; a cursor of another source, entity or watermark field is ignored. */
  fingerprint: string;
  /** When the run that began the load started (kept across resumes). */
  loadStartedAt: string;
  savedAt: string;
  /** Rows read by the load so far, over all of its runs. */
  rows: number;
}

/** A run that began and has not written its end yet (a kill leaves it behind). */
interface RunningMarker {
  startedAt: Date;
  trigger: string;
  /** Last sign of life: the start, then every saved resume cursor. */
  heartbeatAt: Date;
}

/** Run bookkeeping of one job, in its watermark entity. */
export interface RunState {
  resume: ResumeCursor | null;
  /** Consecutive failed runs; 0 after a success. */
  failures: number;
  /** The timer does not start the job before this (failure backoff); null when not backing off. */
  retryAt: Date | null;
  running: RunningMarker | null;
}

/** Reads and writes {@link RunState} beside the watermark (implemented by `RunStateService`). */
export interface RunStateStore {
  getRunState(jobName: string): Promise<RunState>;
  /** All jobs' states, one bulk read. */
  getAllRunStates(): Promise<Map<string, RunState>>;
  /** Changes the state's columns, keeping the watermark and `LastCronRun` as stored. */
  updateRunState(jobName: string, change: Partial<RunState>): Promise<void>;
}

/** The state of a job with nothing stored: no cursor, no failures, not running. */
export const EMPTY_RUN_STATE: RunState = { resume: null, failures: 0, retryAt: null, running: null };
