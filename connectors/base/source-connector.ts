import type { Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import type { WatermarkValue } from '../../src/model/watermark-value';
import type { SkippedRow } from './skipped-rows';

/**
 * A detected change that only moved the change tracker (no business change). It advances the
 * watermark and sends nothing. Only connectors that can tell emit these (the SQL connector cannot).
 */
export interface TimeStampChange {
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

export interface RetrieveOptions {
  /** Rows per page. Default: `job.pageSize`. */
  pageSize?: number;
  /** Continue after the page that returned this cursor (same run bounds). Default: start a new run. */
  cursor?: string;
}

export interface SourceConnector {
  /**
   * Changes after `watermark` (minus `job.lookbackSeconds`) that match `job.filter`, as pages.
   * Stopping the iteration early is safe (nothing is held open afterwards).
   */
  retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options?: RetrieveOptions): AsyncIterable<SourcePage>;
  close(): Promise<void>;
}
