import type { RefusedMessage, SourceConnector, SourcePage } from '../../connectors/base/source-connector';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import type { WatermarkValue } from '../model/watermark-value';
import type { Logger } from '../telemetry/logger';
import type { BatchingSender, UnchangedCheck } from './detection-dependencies';
import { recordSkippedRow, sendOrSkip, type SkippedRowsRecord } from './skipped-rows';

/**
 * One page of a job's changes, handled the same way by every detection path: the timer's and
 * HTTP runs (read-changes.ts, page after page) and the durable activity (one page per call).
 */

/** What a page adds to: a run's record, or a durable page's tally. */
export interface PageCounts extends SkippedRowsRecord {
  /** Changes read (sent, timestamp-only, unchanged, skipped). */
  detected: number;
  /** Timestamp-only changes, and changes a `skipUnchanged` job leaves unsent. */
  timeStamps: number;
}

/** What a page is processed with (the same for every page of a read). */
export interface PageStep {
  job: Job;
  source: SourceConnector;
  /** Batches the page's messages per priority queue. None: a dry run, the messages go to `preview`. */
  sender: BatchingSender | undefined;
  /** The job's resync token, carried by every message sent; undefined for none. */
  resync: string | undefined;
  /** Asked for `skipUnchanged` jobs (runs that send only). */
  unchanged: UnchangedCheck | undefined;
  counts: PageCounts;
  /** Moves the watermark over a change read (see {@link watermarkAdvancer}). */
  advance(changeTracker: string): void;
  log: Logger;
  /** Dry runs: the messages that would be sent, up to `limit`. */
  preview?: { messages: QueueMessage[]; limit: number };
}

/**
 * Counts the page's changes, records its skipped rows, sends (or previews) its messages but the
 * unchanged ones, advances the watermark over all of them, and acknowledges the page to a source
 * that hands out work once its messages are on the bus. Messages may stay batched in the sender
 * when the source does not take acknowledgements: the caller flushes.
 * @returns true when a dry run's preview is full (the read stops; the rest of the page is not read).
 * @throws what the sender or the source throw (a refusal only when `job.skipFailedRows` is off).
 */
export async function processPage(step: PageStep, page: SourcePage): Promise<boolean> {
  const { job, sender, counts, advance, resync, preview } = step;
  const refused: RefusedMessage[] = [];
  const unchanged = job.skipUnchanged && step.unchanged && sender ? await step.unchanged.unchanged(job, page.messages) : new Set<QueueMessage>();
  for (const stamp of page.timeStamps) {
    advance(stamp.changeTracker);
    counts.timeStamps++;
    counts.detected++;
  }
  for (const row of page.skipped ?? []) {
    counts.detected++;
    recordSkippedRow(counts, job, row, step.log);
    advance(row.changeTracker);
  }
  for (const message of page.messages) {
    counts.detected++;
    if (resync !== undefined) message.resync = resync;
    if (unchanged.has(message)) {
      counts.timeStamps++;
    } else if (sender) {
      if (!job.skipFailedRows) await sender.addMessageOrSend(message, job.priority);
      else {
        const error = await sendOrSkip(() => sender.addMessageOrSend(message, job.priority), message, job, counts, step.log);
        if (error !== undefined) refused.push({ message, error });
      }
    } else if (preview) {
      preview.messages.push(message);
      if (preview.messages.length >= preview.limit) return true;
    }
    advance(message.changeTracker);
  }
  if (sender && step.source.acknowledge) {
    // A source that hands out work learns that the page is done only once it is on the bus.
    await sender.flushBatch();
    await step.source.acknowledge(page, refused);
  }
  return false;
}

/**
 * `watermark.advance`, skipping a change tracker equal to the one just advanced to (an exact
 * string compare is far cheaper than re-canonicalizing, and rows of one bulk update share theirs).
 */
export function watermarkAdvancer(watermark: WatermarkValue): (changeTracker: string) => void {
  let advancedTo: string | undefined;
  return (changeTracker) => {
    if (changeTracker === advancedTo) return;
    watermark.advance(changeTracker);
    advancedTo = changeTracker;
  };
}
