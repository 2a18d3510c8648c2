import type { SourceConnector, SourcePage } from '../../../connectors/base/source-connector';
import { PermanentError } from '../../platform/errors';
import type { Job } from '../../model/job';
import type { Mapping } from '../../model/mapping';
import type { WatermarkStore } from '../../model/watermark-record';
import { WatermarkValue } from '../../model/watermark-value';
import type { Logger } from '../../telemetry/logger';
import { METRIC_NAMES, type Metrics } from '../../telemetry/metrics';
import type { BatchingSender, UnchangedCheck } from '../detection-dependencies';
import { totalSent } from '../job-run';
import { processPage, watermarkAdvancer, type PageCounts } from '../process-page';
import { MAX_BATCH_SIZE, type JobActivityResult } from './durable-contract';
import { parseActivityParam } from './durable-payloads';

export interface GetChangesActivityDependencies {
  config: {
    ensureInitialized(): Promise<unknown>;
    getJob(name: string): Job | undefined;
    getMapping(name: string): Mapping | undefined;
  };
  /** Read on the first page only (the durable path never writes it). */
  watermarks: Pick<WatermarkStore, 'getWatermarkByJobName'>;
  sources: { source(connectionName: string): Promise<SourceConnector> };
  /** A fresh sender per page (a ServiceBusService), so that one page's batches and failures stay its own. */
  newSender(): BatchingSender;
  metrics: Metrics;
  log: Logger;
  /** `skipUnchanged` jobs: changes equal to what was last applied are not sent. */
  unchanged?: UnchangedCheck;
  /** Records per page, over the job's `pageSize`. Default: the job's, else {@link MAX_BATCH_SIZE} (3). */
  pageSize?: number;
}

/**
 * `GetChangesActivity`: reads one page of a job's changes (at most the job's `pageSize`
 * records, else `MaxBatchSize`; continuing after `param.cursor`) and sends them to the job's work queue in batches, as the
 * timer's runs do (process-page.ts), every batch sent before it returns. The watermark
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
  const page = await firstPage(source.retrieveChanges(mapping, job, lowerBound, { pageSize: deps.pageSize ?? job.pageSize ?? MAX_BATCH_SIZE, cursor: param.cursor }));
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

  const counts: PageCounts = { detected: 0, timeStamps: 0 };
  const sender = deps.newSender();
  const step = { job, source, sender, resync: resync ?? undefined, unchanged: deps.unchanged, counts, advance: watermarkAdvancer(advanced), log: deps.log };
  await processPage(step, page);
  await sender.flushBatch();
  result.sent = totalSent({ sentByQueue: sender.sentCounts() });
  result.detected = counts.detected;
  if (counts.skipped !== undefined) Object.assign(result, { skipped: counts.skipped, skippedRows: counts.skippedRows });
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
