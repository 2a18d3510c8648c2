import type { Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import type { WatermarkValue } from '../../src/model/watermark-value';
import type { SkippedRow } from './skipped-rows';

/**
 * A detected change that only moved the change tracker (no business change). It advances the
 * watermark and sends nothing. Only connectors that can tell emit these (the SQL connector cannot).
 */
interface TimeStampChange {
  action: JobActionType.TimeStamp;
  sourceKey: string;
  changeTracker: string;
}

/** One page of detected changes, in change-tracker order. */
export interface SourcePage {
  /** Serialized changes to send. */
  messages: QueueMessage[];
  /** Timestamp-only changes (advance the watermark, send nothing). */
  timeStamps: TimeStampChange[];
  /** Rows that could not become a message, skipped (`job.skipFailedRows`); absent when none. */
  skipped?: SkippedRow[];
  /** Change tracker (canonical) of the page's last row; null for an empty page. */
  lastChangeTracker: string | null;
  /** Rows read from the source for this page. */
  rowCount: number;
  /** Opaque position after this page: pass it as {@link RetrieveOptions.cursor} to continue (durable path). */
  cursor: string;
  /** False when this page was the last one of the run (a full page may still be followed by an empty read). */
  hasMore: boolean;
}

/** A message of a page that the queue refused (`job.skipFailedRows`: too large), and why. */
export interface RefusedMessage {
  message: QueueMessage;
  error: string;
}

export interface RetrieveOptions {
  /** Rows per page. Default: `job.pageSize`, else `DEFAULT_PAGE_SIZE` (500). */
  pageSize?: number;
  /** Continue after the page that returned this cursor (same run bounds). Default: start a new run. */
  cursor?: string;
  /**
   * A look only (dry run): the pages will not be sent nor acknowledged, so a source that hands
   * out work (claims rows) reads without claiming. Default false.
   */
  preview?: boolean;
}

/**
 * The current change tracker of records, by message `sourceKey`: canonical under the job's
 * watermark type; null when the record is there but detection would not send its change
 * (outside the job's filter, a NULL tracker). A key the map lacks is no longer in the source.
 */
export type CurrentTrackers = ReadonlyMap<string, string | null>;

export interface SourceConnector {
  /**
   * Changes after `watermark` (minus `job.lookbackSeconds`) that match `job.filter`, as pages.
   * Stopping the iteration early is safe (nothing is held open afterwards).
   */
  retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options?: RetrieveOptions): AsyncIterable<SourcePage>;
  /**
   * Optional, for sources that hand out work instead of being read past a watermark (an outbox
   * table: its rows are claimed by the read and stay claimed until acknowledged). Detection calls
   * it once per page of a sending run, once every message of the page is on the bus, was dropped
   * as unchanged, or was refused by the queue (`skipFailedRows`, listed in `refused` with why),
   * and before it asks for the next page; never on a dry run, nor after a send failed the run
   * (the page's rows are then read again once their claim runs out, and sent again under the
   * same message ids). A page handed out by another source instance, or acknowledged before, is
   * a no-op.
   * @param refused messages of the page the queue refused: their rows are set aside with why. Default none.
   * @throws what the source's database throws, classified (`TransientError` for an outage): the
   *   run fails, and the page's rows come back after their claim runs out (nothing is lost; the
   *   broker's duplicate detection and the target's version guard absorb the resend).
   */
  acknowledge?(page: SourcePage, refused?: readonly RefusedMessage[]): Promise<void>;
  /**
   * Reads the current change tracker of the records with these `sourceKey`s (as detection builds
   * them: `mapping.source.key` values joined with `|`), for the processor's check of a message
   * delivered again after a lost lock: a record whose tracker moved on was changed since. Optional:
   * a source without it (or a job it cannot answer for) leaves such messages unchecked.
   * @returns undefined when this job's changes cannot be read by key (e.g. change tracking by
   *   delta links); else see {@link CurrentTrackers}.
   * @throws TransientError when the source cannot be reached; ConfigError when the mapping or job
   *   does not fit the source; PermanentError for a stored value that is no value of the job's
   *   watermark type — as {@link retrieveChanges} does.
   */
  currentTrackers?(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<CurrentTrackers | undefined>;
  /**
   * Reads records by key as detection would send them now (two-way sync reads both sides of a
   * record before it writes): per `sourceKey` found, the message detection would build for it
   * (`NewUpdate`, or `Delete` when `job.softDelete` matches), with mapped fields, target key and
   * the record's current change tracker. Ignores the watermark, lookback and settle horizon;
   * applies `job.filter` (a record outside it is absent, like a deleted one). Optional.
   * @returns sourceKey → message; a key absent from the map is not in the source.
   * @throws as {@link retrieveChanges} does (`TransientError` for an outage, `ConfigError` for a
   *   mapping that does not fit the source, `PermanentError` for a value that cannot be mapped).
   */
  readByKeys?(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<Map<string, QueueMessage>>;
  close(): Promise<void>;
}
