import type { SourceConnector } from '../../connectors/base/source-connector';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { WatermarkValue } from '../model/watermark-value';
import { PermanentError } from '../platform/errors';
import type { BatchingSender, DetectionDependencies } from './detection-dependencies';
import type { JobRunResult, StopReason } from './job-run';
import type { QueueRoom } from './queue-room';
import type { RunProgress } from './run-progress';
import { processPage, watermarkAdvancer, type PageStep } from './process-page';

/**
 * One run's reading of its source: page by page (process-page.ts), each change sent in batches
 * by priority (or kept as a preview on a dry run), the watermark advanced over every change read.
 * The run's bookkeeping around it (watermark, run state, run log) is process-jobs-service.ts's.
 */

/** What one run reads with. */
export interface ChangeRead {
  job: Job;
  /** Advanced over every change read (not saved here). */
  watermark: WatermarkValue;
  /** Counted up as the pages are read. */
  run: JobRunResult;
  /** Dry run: nothing is sent, the changes go to `run.preview`. */
  dryRun: boolean;
  /** Dry runs only: stop after this many changes. */
  limit: number;
  /** Resume cursor and per-page bookkeeping; none without a run-state store or on a dry run. */
  progress?: RunProgress;
  /** After a page read at or past this time the read stops (see RunJobOptions.deadline). */
  deadline?: Date;
  /** Backpressure: after a page, stops the read when the job's queue is full (queue-room.ts). None: no limit. */
  room?: QueueRoom;
  /** The job's resync token (`WatermarkRecord.resync`), carried by every message sent; null for none. */
  resync?: string | null;
  /** Told after each page of a run that sends, with the run so far; a failing one is ignored. */
  listeners: ReadonlySet<(run: Readonly<JobRunResult>) => void>;
}

/**
 * Reads the job's changes to the end (or the deadline) and flushes what is batched; sets
 * `run.sentByQueue` to what the bus accepted, also when a send fails.
 * @returns why the read stopped before the source was read to the end (its deadline, a full
 *   queue; the resume cursor is saved), or undefined when it read to the end.
 * @throws PermanentError for an unknown mapping; errors of the source or the bus as they are.
 */
export async function detectChanges(deps: DetectionDependencies, read: ChangeRead): Promise<StopReason | undefined> {
  const { job, run } = read;
  const mapping = deps.config.getMapping(job.mapping);
  if (!mapping) throw new PermanentError(`job "${job.name}": unknown mapping "${job.mapping}"`);
  const source = await deps.sources.source(job.source);
  const sender = read.dryRun ? undefined : deps.newSender();
  try {
    const stopped = await readPages(deps, read, mapping, source, sender);
    await sender?.flushBatch();
    return stopped;
  } finally {
    // What the bus accepted, not what was batched: a failed send leaves its batch unsent.
    if (sender) run.sentByQueue = sender.sentCounts();
  }
}

async function readPages(deps: DetectionDependencies, read: ChangeRead, mapping: Mapping, source: SourceConnector, sender: BatchingSender | undefined): Promise<StopReason | undefined> {
  const { job, watermark, run, limit, progress, deadline, listeners, room } = read;
  const step: PageStep = {
    job,
    source,
    sender,
    resync: read.resync ?? undefined,
    unchanged: deps.unchanged,
    counts: run,
    advance: watermarkAdvancer(watermark),
    log: deps.log,
    ...(sender ? {} : { preview: { messages: (run.preview ??= []), limit } }),
  };
  let rowsRead = 0;
  const options = { ...(progress?.resume ? { cursor: progress.resume.position } : {}), ...(sender ? {} : { preview: true }) };
  for await (const page of source.retrieveChanges(mapping, job, watermark, options)) {
    if (await processPage(step, page)) return undefined;
    rowsRead += page.rowCount;
    if (sender && listeners.size > 0) {
      run.sentByQueue = sender.sentCounts();
      // A listener only watches: its failure must not fail the run.
      for (const listener of listeners) try { listener(run); } catch { /* ignored */ }
    }
    if (!progress || !sender || !page.hasMore) continue;
    const late = deadline !== undefined && deps.clock.now().getTime() >= deadline.getTime();
    if (!late && room && (await room.full(sentSoFar(sender)))) {
      // Only a run whose cursor is saved may stop for room: resuming from an older cursor would
      // send the same pages again at every pass and never get further.
      if (await progress.afterPage(page, rowsRead, watermark, sender, true)) return 'backpressure';
      continue;
    }
    await progress.afterPage(page, rowsRead, watermark, sender, late);
    if (late) return 'timeBudget';
  }
  return undefined;
}

function sentSoFar(sender: BatchingSender): number {
  let sent = 0;
  for (const count of Object.values(sender.sentCounts())) sent += count;
  return sent;
}
