import { isSkippableRowError, type SkippedRow } from '../../connectors/base/skipped-rows';
import { errorMessage } from '../platform/errors';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import type { Logger } from '../telemetry/logger';

/** Skipped rows a run's record lists (the count covers all of them): one stored entity stays small. */
const MAX_SKIPPED_ROWS_LISTED = 20;

/** What a run (or a durable page) keeps of its skipped rows. */
export interface SkippedRowsRecord {
  skipped?: number;
  skippedRows?: SkippedRow[];
}

/**
 * Records a row skipped under `job.skipFailedRows`: counted, listed while the list has room, and
 * logged as an error (the log names the key and why; it is the place an operator looks).
 */
export function recordSkippedRow(record: SkippedRowsRecord, job: Job, row: SkippedRow, log: Logger): void {
  record.skipped = (record.skipped ?? 0) + 1;
  const listed = (record.skippedRows ??= []);
  if (listed.length < MAX_SKIPPED_ROWS_LISTED) listed.push({ ...row, error: clip(row.error) });
  log.error(`job "${job.name}": skipped source row ${row.sourceKey ?? '(key unreadable)'} at ${row.changeTracker}: ${row.error}`, {
    job: job.name,
    ...(row.sourceKey === null ? {} : { sourceKey: row.sourceKey }),
  });
}

/** Errors listed in a run's record are cut at 500 characters (the log keeps them whole). */
function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/**
 * Sends one message; with `job.skipFailedRows`, a message the queue refuses as too large (a
 * `PermanentError`) becomes a skipped row instead of stopping the run.
 * @returns undefined when it was sent; why it was refused when it was skipped.
 * @throws what `send` throws otherwise (a bus that is down stops the run: nothing is skipped then).
 */
export async function sendOrSkip(
  send: () => Promise<void>,
  message: QueueMessage,
  job: Job,
  record: SkippedRowsRecord,
  log: Logger,
): Promise<string | undefined> {
  try {
    await send();
    return undefined;
  } catch (err) {
    if (!job.skipFailedRows || !isSkippableRowError(err)) throw err;
    const error = errorMessage(err);
    recordSkippedRow(record, job, { sourceKey: message.sourceKey, changeTracker: message.changeTracker, error }, log);
    return error;
  }
}
