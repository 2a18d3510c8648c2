import type { RowChange } from '../base/change-page';
import { canonicalChangeTracker } from '../base/connector-base';
import { type Job, JobActionType } from '../../src/model/job';
import { parseWatermarkType } from '../../src/model/watermark-value';
import type { SqlDialect, SqlRow } from './dialect';
import { DELETED_FLAG } from './sql-query';
import { numericTimeKind, sqliteNumberToCanonical, sqliteTextToCanonical } from './sqlite-timestamps';

/**
 * A row read with the soft-delete flag ({@link DELETED_FLAG}) as the change detection sends:
 * the flag taken off the row, the row in its message form (`dialect.messageRow`), `Delete` when
 * flagged. Shared by detection and reads by key, so both build the same message from a row.
 * @param changeTracker the row's canonical change tracker.
 */
export function sqlRowChange(dialect: SqlDialect, row: SqlRow, changeTracker: string): RowChange {
  const deleted = Number(row[DELETED_FLAG]) === 1;
  delete row[DELETED_FLAG];
  return { row: dialect.messageRow ? dialect.messageRow(row) : row, changeTracker, ...(deleted ? { action: JobActionType.Delete } : {}) };
}

/**
 * The canonical change tracker of a row read by key, as detection reads it: a SQLite datetime
 * column in any text form SQLite reads, or julian days / unix seconds; other columns by the
 * job's watermark type.
 * @throws PermanentError when the tracker is NULL or no value of the type; ConfigError for a
 *   SQLite value that is no time.
 */
export function currentChangeTracker(dialect: SqlDialect, row: SqlRow, job: Job): string {
  const raw = row[job.watermark.field];
  if (raw !== null && raw !== undefined && dialect.kind === 'sqlite' && parseWatermarkType(job.watermark.type) === 'datetime') {
    const what = `job "${job.name}": watermark field "${job.watermark.field}"`;
    if (typeof raw === 'string') return sqliteTextToCanonical(raw, what);
    const number = typeof raw === 'bigint' ? Number(raw) : raw;
    if (typeof number === 'number') return sqliteNumberToCanonical(number, numericTimeKind(number, what), what);
  }
  return canonicalChangeTracker(row, job);
}
