import { randomBytes } from 'node:crypto';
import type { TableRow, TableStore } from '../storage/table-store';
import type { RunLog } from './detection-dependencies';
import type { JobRunResult } from './job-run';
import { totalSent } from './job-run';
import type { SkippedRow } from '../../connectors/base/skipped-rows';

/** Table of job runs: partition = job name, row key = inverted start time (newest first). */
export const RUNS_TABLE = 'runs';

const MAX_TICKS = 9_999_999_999_999;

/**
 * Writes one record per job run and reads the latest back (`highwater runs`). Keeps the newest
 * `keepPerJob` runs of each job so the table does not grow without bound.
 */
export class RunLogStore implements RunLog {
  constructor(
    private readonly table: TableStore,
    /** Runs kept per job. Default 200. */
    private readonly keepPerJob = 200,
  ) {}

  async record(run: JobRunResult): Promise<void> {
    // A random suffix keeps two runs started in the same millisecond apart.
    const rowKey = `${String(MAX_TICKS - run.startedAt.getTime()).padStart(13, '0')}-${run.trigger}-${randomBytes(4).toString('hex')}`;
    await this.table.upsert({
      partitionKey: run.jobName,
      rowKey,
      properties: {
        Trigger: run.trigger,
        StartedAt: run.startedAt,
        EndedAt: run.endedAt,
        Detected: run.detected,
        Sent: totalSent(run),
        SentByQueue: JSON.stringify(run.sentByQueue),
        TimeStamps: run.timeStamps,
        Skipped: run.skipped ?? 0,
        SkippedRows: run.skippedRows?.length ? JSON.stringify(run.skippedRows) : null,
        WatermarkBefore: run.watermarkBefore,
        WatermarkAfter: run.watermarkAfter,
        Outcome: run.outcome,
        Error: run.error ?? null,
        Resumed: run.resumed ?? null,
        StoppedEarly: run.stoppedEarly ?? null,
        Interrupted: run.interrupted ?? null,
        RetryAt: run.retryAt ?? null,
      },
    });
    const rows = await this.table.queryPartition(run.jobName);
    if (rows.length > this.keepPerJob) {
      await this.table.submitBatch(rows.slice(this.keepPerJob).map((r) => ({ kind: 'delete' as const, partitionKey: r.partitionKey, rowKey: r.rowKey })));
    }
  }

  /** The newest runs, of one job or of all, newest first. */
  async latest(jobName?: string, limit = 20): Promise<JobRunResult[]> {
    const rows = jobName ? await this.table.queryPartition(jobName) : await this.table.list();
    return rows
      .map(fromRow)
      .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime())
      .slice(0, limit);
  }
}

function fromRow(row: TableRow): JobRunResult {
  const p = row.properties;
  const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
  return {
    jobName: row.partitionKey,
    trigger: (p.Trigger as JobRunResult['trigger']) ?? 'manual',
    startedAt: date(p.StartedAt),
    endedAt: date(p.EndedAt),
    detected: Number(p.Detected ?? 0),
    sentByQueue: JSON.parse(String(p.SentByQueue ?? '{}')) as Record<string, number>,
    timeStamps: Number(p.TimeStamps ?? 0),
    ...(Number(p.Skipped ?? 0) > 0 ? { skipped: Number(p.Skipped) } : {}),
    ...(p.SkippedRows ? { skippedRows: JSON.parse(String(p.SkippedRows)) as SkippedRow[] } : {}),
    watermarkBefore: (p.WatermarkBefore as string | undefined) ?? null,
    watermarkAfter: (p.WatermarkAfter as string | undefined) ?? null,
    outcome: p.Outcome === 'Failed' ? 'Failed' : 'Succeeded',
    ...(p.Error ? { error: String(p.Error) } : {}),
    ...(p.Resumed === true ? { resumed: true } : {}),
    ...(p.StoppedEarly === 'timeBudget' || p.StoppedEarly === 'backpressure' ? { stoppedEarly: p.StoppedEarly } : {}),
    ...(p.Interrupted === true ? { interrupted: true } : {}),
    ...(p.RetryAt ? { retryAt: date(p.RetryAt) } : {}),
  };
}
