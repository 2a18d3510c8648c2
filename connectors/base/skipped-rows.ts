import { errorKind, errorMessage } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { joinSourceKey } from '../../src/model/source-key';
import { ConnectorBase, type SerializeContext } from './connector-base';
import { type SourceRow, toText } from './operations';

/**
 * A source row that could not become a message and was skipped (`job.skipFailedRows`): it is
 * reported in the page, the run's record and the log, and the watermark moves past it.
 */
export interface SkippedRow {
  /** The row's source key; null when the key itself could not be read. */
  sourceKey: string | null;
  /** The row's canonical change tracker (the watermark moves past it). */
  changeTracker: string;
  /** Why: the error's message (no values beyond the ones it names). */
  error: string;
}

/**
 * Whether a row's failure may be skipped: only what is wrong with that row (`PermanentError`: a
 * value that cannot be converted, a null key, a resolver with `onMissing: error`, a message over
 * the queue's size limit). A `ConfigError` concerns every row, and a `TransitiveError` (a
 * dependency not there yet) is worth reading again: both still stop the run.
 */
export function isSkippableRowError(err: unknown): boolean {
  return errorKind(err) === 'permanent';
}

/**
 * {@link ConnectorBase.serialize}, except that with `job.skipFailedRows` a row whose failure
 * {@link isSkippableRowError} is added to `skipped` and undefined is returned.
 * @throws what `serialize` throws, when the job does not skip failed rows or the error is not the row's.
 */
export async function serializeOrSkip(
  row: SourceRow,
  mapping: Mapping,
  job: Job,
  ctx: SerializeContext & { changeTracker: string },
  skipped: SkippedRow[],
): Promise<QueueMessage | undefined> {
  if (!job.skipFailedRows) return ConnectorBase.serialize(row, mapping, job, ctx);
  try {
    return await ConnectorBase.serialize(row, mapping, job, ctx);
  } catch (err) {
    if (!isSkippableRowError(err)) throw err;
    skipped.push({ sourceKey: sourceKeyOf(row, mapping), changeTracker: ctx.changeTracker, error: errorMessage(err) });
    return undefined;
  }
}

/** The row's source key as `serialize` builds it; null when a key field is missing. */
function sourceKeyOf(row: SourceRow, mapping: Mapping): string | null {
  const values = mapping.source.key.map((field) => row[field]);
  if (values.some((value) => value === null || value === undefined)) return null;
  try {
    return joinSourceKey(values.map(toText));
  } catch {
    return null;
  }
}
