import type { RefusedMessage, SourceConnector, SourcePage } from '../../../connectors/base/source-connector';
import { PermanentError } from '../../platform/errors';
import type { Job } from '../../model/job';
import type { Mapping } from '../../model/mapping';
import type { QueueMessage } from '../../model/queue-message';
import type { WatermarkStore } from '../../model/watermark-record';
import { WatermarkValue } from '../../model/watermark-value';
import type { Logger } from '../../telemetry/logger';
import { METRIC_NAMES, type Metrics } from '../../telemetry/metrics';
import type { UnchangedCheck } from '../detection-dependencies';
import { MAX_BATCH_SIZE, type JobActivityResult } from './durable-contract';
import { parseActivityParam } from './durable-payloads';
import { recordSkippedRow, sendOrSkip } from '../skipped-rows';
import type { QueueNames } from '../../platform/queue-topology';

export interface GetChangesActivityDependencies {
  config: {
    ensureInitialized(): Promise<unknown>;
    getJob(name: string): Job | undefined;
    getMapping(name: string): Mapping | undefined;
  };
  /** Read on the first page only (the durable path never writes it). */
  watermarks: Pick<WatermarkStore, 'getWatermarkByJobName'>;
  sources: { source(connectionName: string): Promise<SourceConnector> };
  /** Sends one message now (ServiceBusService.sendMessage). */
  sender: { sendMessage(queue: string, message: QueueMessage): Promise<void> };
  queues: QueueNames;
  metrics: Metrics;
  log: Logger;
  /** `skipUnchanged` jobs: changes equal to what was last applied are not sent. */
  unchanged?: UnchangedCheck;
  /** Records per page. Default {@link MAX_BATCH_SIZE} (3). */
  pageSize?: number;
}

/**
 * `GetChangesActivity`: reads one page of a job's changes (at most `MaxBatchSize` records,
 * continuing after `param.cursor`) and sends each record to the job's work queue. The watermark
 * is advanced in the result but never persisted (spec); a job that breaks off is read again from
 * the stored watermark by the next run, and broker duplicate detection drops the resends.
 * @throws PermanentError for invalid input, an unknown job or mapping; errors of the source or
 *   the bus as they are (the orchestration records the job as failed).
 */
export async function runGetChangesActivity(deps: GetChangesActivityDependencies, raw: unknown): Promise<JobActivityResult> {
  const param = parseActivityParam(raw);
  await deps.config.ensureInitialized();
  const job = deps.config.getJob(param.jobName);
  if (!job) throw new PermanentError(`unknown job "${param.jobName}"`);
  const mapping = deps.config.getMapping(job.mapping);
  if (!mapping) throw new PermanentError(`job "${job.name}": unknown mapping "${job.mapping}"`);

  const warn = (m: string) => deps.log.warn(m, { job: job.name });
  const record = param.cursor === undefined ? await deps.watermarks.getWatermarkByJobName(job.name) : undefined;
  const startWatermark = record ? record.watermark : (param.startWatermark ?? null);
  // A reset's resend must get new message ids: every page's messages carry the first page's token.
  const resync = record ? record.resync : (param.resync ?? null);
  const lowerBound = WatermarkValue.initialize(job.watermark.type, startWatermark, warn, job.name);
  const advanced = WatermarkValue.initialize(job.watermark.type, param.watermark ?? startWatermark, warn, job.name);

  const source = await deps.sources.source(job.source);
  const page = await firstPage(source.retrieveChanges(mapping, job, lowerBound, { pageSize: deps.pageSize ?? MAX_BATCH_SIZE, cursor: param.cursor }));
  const result: JobActivityResult = {
    jobName: job.name,
    page: param.pageNumber,
    cursor: page?.cursor ?? param.cursor ?? null,
    startWatermark: lowerBound.value,
    ...(resync !== null ? { resync } : {}),
    watermark: advanced.value,
    hasMoreRecord: page?.hasMore ?? false,
    detected: 0,
    sent: 0,
  };
  if (!page) return result;

  const queue = deps.queues.work[job.priority];
  const unchanged = job.skipUnchanged && deps.unchanged ? await deps.unchanged.unchanged(job, page.messages) : new Set<QueueMessage>();
  for (const stamp of page.timeStamps) {
    advanced.advance(stamp.changeTracker);
    result.detected++;
  }
  for (const row of page.skipped ?? []) {
    result.detected++;
    recordSkippedRow(result, job, row, deps.log);
    advanced.advance(row.changeTracker);
  }
  const refused: RefusedMessage[] = [];
  for (const message of page.messages) {
    result.detected++;
    if (resync !== null) message.resync = resync;
    if (!unchanged.has(message)) {
      const error = await sendOrSkip(() => deps.sender.sendMessage(queue, message), message, job, result, deps.log);
      if (error === undefined) result.sent++;
      else refused.push({ message, error });
    }
    advanced.advance(message.changeTracker);
  }
  // Every message is sent (one by one, above): a source that hands out work may mark the page done.
  if (source.acknowledge) await source.acknowledge(page, refused);
  result.watermark = advanced.value;
  deps.metrics.track(METRIC_NAMES.changesDetected, result.detected, { job: job.name });
  return result;
}

/** The first page only; the iterator is closed so the source holds nothing open. */
async function firstPage(pages: AsyncIterable<SourcePage>): Promise<SourcePage | undefined> {
  const iterator = pages[Symbol.asyncIterator]();
  try {
    const next = await iterator.next();
    return next.done ? undefined : next.value;
  } finally {
    await iterator.return?.();
  }
}
