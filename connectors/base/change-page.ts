import type { Clock } from '../../src/platform/clock';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import type { SourceRow } from './operations';
import type { RelatedValueLookup } from './resolvers';
import { serializeOrSkip, type SkippedRow } from './skipped-rows';
import type { SourcePage } from './source-connector';

/** What a source connector makes of one row it read, when the row is a change of this run. */
export interface RowChange {
  /** What is serialized: the row as read, or what stands for it (e.g. the key of a removed record). */
  row: SourceRow;
  /** The row's canonical change tracker: its message's, and the page's when it is the last change. */
  changeTracker: string;
  /** Action of the message. Default `job.action` (a soft-deleted or removed record passes `Delete`). */
  action?: QueueMessage['action'];
  /** A source field missing from `row` is null (a removed record carries only its key). Default false. */
  missingFieldsAreNull?: boolean;
}

/** What every page of one detection run serializes with. */
export interface ChangeRun {
  mapping: Mapping;
  job: Job;
  /** Time of detection (`detectedAt`). */
  clock: Pick<Clock, 'now'>;
  /** Resolver lookups of the run (a `ResolverCache`, so each value is looked up once per run). */
  lookup: RelatedValueLookup;
}

/** The rows of one page, serialized: a {@link SourcePage} but for its position. */
export interface SerializedRows {
  messages: QueueMessage[];
  /** Rows that could not become a message (`job.skipFailedRows`). */
  skipped: SkippedRow[];
  /** Change tracker of the last row that was a change; null when none was. */
  lastChangeTracker: string | null;
  /** Rows read, changes or not. */
  rowCount: number;
}

/**
 * Serializes the rows of a page in order. `changeOf` tells what a row is as a change, or
 * undefined when it is none of this run (outside the run's exact window, not matching a filter
 * the service did not apply): such a row counts as read and nothing else. It is called for a row
 * just before the row is serialized, so its failures and the row's come in row order.
 * @throws what `changeOf` throws, and what `serializeOrSkip` throws (a row failure the job does not skip).
 */
export async function serializeRows<R>(run: ChangeRun, rows: readonly R[], changeOf: (row: R) => RowChange | undefined): Promise<SerializedRows> {
  const messages: QueueMessage[] = [];
  const skipped: SkippedRow[] = [];
  let lastChangeTracker: string | null = null;
  for (const read of rows) {
    const change = changeOf(read);
    if (!change) continue;
    const { row, ...ctx } = change;
    lastChangeTracker = ctx.changeTracker;
    const message = await serializeOrSkip(row, run.mapping, run.job, { ...ctx, clock: run.clock, lookup: run.lookup }, skipped);
    if (message) messages.push(message);
  }
  return { messages, skipped, lastChangeTracker, rowCount: rows.length };
}

/**
 * The page of serialized rows at a position: no timestamp-only changes, `skipped` only when a
 * row was skipped. The position is the caller's (it is known only once the page was read).
 */
export function changePage(rows: SerializedRows, position: Pick<SourcePage, 'cursor' | 'hasMore'>): SourcePage {
  const { messages, skipped, lastChangeTracker, rowCount } = rows;
  return { messages, timeStamps: [], ...(skipped.length > 0 ? { skipped } : {}), lastChangeTracker, rowCount, cursor: position.cursor, hasMore: position.hasMore };
}
