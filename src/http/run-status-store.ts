import { randomBytes } from 'node:crypto';
import { decodeJsonProperties, encodeJsonProperties } from '../storage/entity-codec';
import type { EntityProperties, TableRow, TableStore } from '../storage/table-store';

/**
 * Table of the runs ExecuteJob answered `202` for: one row per accepted run, so that
 * `GET /api/runs/{id}` can answer on any instance. The run's own record still goes to the `runs`
 * table (`highwater runs`); this table maps the id handed out to the run's state and result.
 */
export const RUN_STATUS_TABLE = 'runstatus';

/** One partition: a few rows per long manual run, read by id. */
const PARTITION = 'run';
const MAX_TICKS = 9_999_999_999_999;
const RESULT_PREFIX = 'Result';

/** `Interrupted`: the host stopped before the run ended (its outcome is unknown here). */
type RunState = 'Running' | 'Succeeded' | 'Failed' | 'Interrupted';

export interface RunStatusRecord {
  id: string;
  job: string;
  state: RunState;
  acceptedAt: Date;
  /** Renewed while the run goes on; a stale one means the instance running it went away. */
  heartbeatAt: Date;
  endedAt?: Date;
  /** Once ended: what ExecuteJob answers for a finished run (counts, watermarks, error). */
  result?: unknown;
  /** Why the run did not report a result (`Interrupted`, or a run that threw). */
  error?: string;
}

/** Whether `id` has the shape {@link RunStatusStore.newId} gives (and so is a safe row key). */
export function isRunId(id: string): boolean {
  return /^\d{13}-[0-9a-f]{8}$/.test(id);
}

export class RunStatusStore {
  constructor(
    private readonly table: TableStore,
    /** Rows kept, newest first. Default 500. */
    private readonly keep = 500,
  ) {}

  /** A new id: newest first in the table (inverted time), random suffix against collisions. */
  newId(now: Date): string {
    return `${String(MAX_TICKS - now.getTime()).padStart(13, '0')}-${randomBytes(4).toString('hex')}`;
  }

  /** Writes the whole record (replacing what was there). */
  async write(record: RunStatusRecord): Promise<void> {
    const properties: EntityProperties = {
      Job: record.job,
      State: record.state,
      AcceptedAt: record.acceptedAt,
      HeartbeatAt: record.heartbeatAt,
      EndedAt: record.endedAt ?? null,
      Error: record.error ?? null,
      ...(record.result === undefined ? {} : encodeJsonProperties(record.result, { prefix: RESULT_PREFIX })),
    };
    await this.table.upsert({ partitionKey: PARTITION, rowKey: record.id, properties });
  }

  async get(id: string): Promise<RunStatusRecord | undefined> {
    const row = await this.table.get(PARTITION, id);
    return row && fromRow(row);
  }

  /** Deletes all but the newest {@link keep} rows. */
  async trim(): Promise<void> {
    const rows = await this.table.queryPartition(PARTITION);
    if (rows.length <= this.keep) return;
    await this.table.submitBatch(rows.slice(this.keep).map((r) => ({ kind: 'delete' as const, partitionKey: r.partitionKey, rowKey: r.rowKey })));
  }
}

function fromRow(row: TableRow): RunStatusRecord {
  const p = row.properties;
  const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
  return {
    id: row.rowKey,
    job: String(p.Job),
    state: String(p.State) as RunState,
    acceptedAt: date(p.AcceptedAt),
    heartbeatAt: date(p.HeartbeatAt),
    ...(p.EndedAt ? { endedAt: date(p.EndedAt) } : {}),
    ...(p[`${RESULT_PREFIX}Parts`] !== undefined ? { result: decodeJsonProperties(`run ${row.rowKey}`, p, { prefix: RESULT_PREFIX }) } : {}),
    ...(p.Error ? { error: String(p.Error) } : {}),
  };
}
