import { WATERMARK_PARTITION, WATERMARK_TABLE } from '../model/watermark-record';
import { assertTableKey } from '../storage/table-key';
import type { EntityProperties, TableStorage, TableStore } from '../storage/table-store';
import type { ResumeCursor, RunState, RunStateStore } from './run-state';

/**
 * Keeps the runs' bookkeeping (resume cursor, running marker, failure backoff) in the run-state
 * columns of each job's watermark entity: one read gives the watermark and the state beside it.
 * The watermark columns are `WatermarkService`'s; this only ever writes them back as it read them.
 * A finished run's watermark write replaces the entity, and so clears the run state with it.
 */
export class RunStateService implements RunStateStore {
  constructor(private readonly table: TableStore) {}

  /** A service on `storage`'s `watermark` table, created if missing. */
  static async open(storage: TableStorage): Promise<RunStateService> {
    return new RunStateService(await storage.table(WATERMARK_TABLE));
  }

  async getRunState(jobName: string): Promise<RunState> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    return readRunState(row?.properties ?? {});
  }

  async getAllRunStates(): Promise<Map<string, RunState>> {
    const rows = await this.table.queryPartition(WATERMARK_PARTITION);
    return new Map(rows.map((row) => [row.rowKey, readRunState(row.properties)]));
  }

  /**
   * Read-then-replace of the run-state columns (Table upserts replace the whole entity): every
   * other column (`Watermark`, `LastCronRun`, `Resync`) is written back as read.
   */
  async updateRunState(jobName: string, change: Partial<RunState>): Promise<void> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    const properties = row?.properties ?? {};
    const state = { ...readRunState(properties), ...change };
    await this.table.upsert({ partitionKey: WATERMARK_PARTITION, rowKey: jobName, properties: { ...properties, ...runStateColumns(state) } });
  }
}

/** Columns of the watermark entity that hold the run state. */
const RUN_STATE_COLUMNS = {
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
function readRunState(p: EntityProperties): RunState {
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
function runStateColumns(state: RunState): EntityProperties {
  return {
    [RUN_STATE_COLUMNS.resume]: state.resume ? JSON.stringify(state.resume) : null,
    [RUN_STATE_COLUMNS.failures]: state.failures > 0 ? state.failures : null,
    [RUN_STATE_COLUMNS.retryAt]: state.retryAt,
    [RUN_STATE_COLUMNS.runningSince]: state.running?.startedAt ?? null,
    [RUN_STATE_COLUMNS.runningTrigger]: state.running?.trigger ?? null,
    [RUN_STATE_COLUMNS.heartbeatAt]: state.running?.heartbeatAt ?? null,
  };
}
