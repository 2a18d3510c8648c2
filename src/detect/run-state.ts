import type { EntityProperties } from '../storage/table-store';

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
export interface RunningMarker {
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

export const EMPTY_RUN_STATE: RunState = { resume: null, failures: 0, retryAt: null, running: null };

/** Columns of the watermark entity that hold the run state. */
export const RUN_STATE_COLUMNS = {
  resume: 'ResumeCursor',
  failures: 'ConsecutiveFailures',
  retryAt: 'RetryAt',
  runningSince: 'RunningSince',
  runningTrigger: 'RunningTrigger',
  heartbeatAt: 'HeartbeatAt',
} as const;

function date(value: unknown): Date | null {
  if (value instanceof Date) return value;
  if (typeof value === 'string' && value !== '') {
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? null : parsed;
  }
  return null;
}

function resumeOf(value: unknown): ResumeCursor | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const parsed = JSON.parse(value) as Partial<ResumeCursor>;
    // A cursor edited by hand into something else is dropped: the run then starts from the watermark.
    if (typeof parsed.position !== 'string' || typeof parsed.fingerprint !== 'string') return null;
    return parsed as ResumeCursor;
  } catch {
    return null;
  }
}

/** The run state in an entity's properties (absent columns: nothing pending). */
export function readRunState(p: EntityProperties): RunState {
  const since = date(p[RUN_STATE_COLUMNS.runningSince]);
  return {
    resume: resumeOf(p[RUN_STATE_COLUMNS.resume]),
    failures: Number(p[RUN_STATE_COLUMNS.failures] ?? 0) || 0,
    retryAt: date(p[RUN_STATE_COLUMNS.retryAt]),
    running: since
      ? { startedAt: since, trigger: String(p[RUN_STATE_COLUMNS.runningTrigger] ?? 'scheduled'), heartbeatAt: date(p[RUN_STATE_COLUMNS.heartbeatAt]) ?? since }
      : null,
  };
}

/** The columns of a run state (null clears a column). */
export function runStateColumns(state: RunState): EntityProperties {
  return {
    [RUN_STATE_COLUMNS.resume]: state.resume ? JSON.stringify(state.resume) : null,
    [RUN_STATE_COLUMNS.failures]: state.failures > 0 ? state.failures : null,
    [RUN_STATE_COLUMNS.retryAt]: state.retryAt,
    [RUN_STATE_COLUMNS.runningSince]: state.running?.startedAt ?? null,
    [RUN_STATE_COLUMNS.runningTrigger]: state.running?.trigger ?? null,
    [RUN_STATE_COLUMNS.heartbeatAt]: state.running?.heartbeatAt ?? null,
  };
}
