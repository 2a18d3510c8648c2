import { errorMessage, PermanentError } from '../model/errors';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import { WatermarkValue } from '../model/watermark-value';
import { METRIC_NAMES } from '../telemetry/metrics';
import type { SourceConnector } from '../../connectors/base/source-connector';
import type { Mapping } from '../model/mapping';
import type { BatchingSender, DetectionDependencies } from './detection-dependencies';
import type { JobRunResult } from './job-run';
import { recordSkippedRow, sendOrSkip } from './skipped-rows';

export interface RunJobOptions {
  trigger?: JobRunResult['trigger'];
  /** Dry run: read and serialize, send nothing, keep the watermark. Default false. */
  dryRun?: boolean;
  /** Dry runs only: stop after this many changes. Default 20. */
  limit?: number;
}

/**
 * Change detection (ARCHITECTURE §3): due jobs in order; per job pages of changes → batched
 * sends by priority → flush → watermark and `LastCronRun` written only at the end. A run that
 * breaks off keeps the old watermark, so the next run rereads (duplicates, never gaps).
 */
export class ProcessJobsForRetrievalInOrderService {
  constructor(private readonly deps: DetectionDependencies) {}

  /** Runs every due job in order; one failing job does not stop the jobs after it. */
  async execute(): Promise<JobRunResult[]> {
    await this.deps.config.ensureInitialized();
    const jobs = await this.deps.dueJobs(this.deps.clock.now());
    const results: JobRunResult[] = [];
    for (const job of jobs) results.push(await this.runJob(job, { trigger: 'scheduled' }));
    return results;
  }

  /** Runs one job now. Never throws for a job failure: the result says `Failed`. */
  async runJob(job: Job, options: RunJobOptions = {}): Promise<JobRunResult> {
    const { deps } = this;
    const dryRun = options.dryRun ?? false;
    const startedAt = deps.clock.now();
    const run: JobRunResult = {
      jobName: job.name,
      trigger: dryRun ? 'dryRun' : (options.trigger ?? 'manual'),
      startedAt,
      endedAt: startedAt,
      detected: 0,
      sentByQueue: {},
      timeStamps: 0,
      watermarkBefore: null,
      watermarkAfter: null,
      outcome: 'Succeeded',
      ...(dryRun ? { preview: [] } : {}),
    };
    try {
      await deps.config.ensureInitialized();
      const record = await deps.watermarks.getWatermarkByJobName(job.name);
      run.watermarkBefore = record.watermark;
      run.watermarkAfter = record.watermark;
      const watermark = WatermarkValue.initialize(job.watermark.type, record.watermark, (m) => deps.log.warn(m), job.name);
      await this.detect(job, watermark, run, dryRun, options.limit ?? 20);
      if (!dryRun) {
        await deps.watermarks.updateWatermarkByJobName(job.name, watermark.value, startedAt);
        run.watermarkAfter = watermark.value;
      }
    } catch (err) {
      run.outcome = 'Failed';
      run.error = errorMessage(err);
      run.watermarkAfter = run.watermarkBefore;
      deps.log.error(`job "${job.name}" failed: ${run.error}`, { job: job.name });
    }
    run.endedAt = deps.clock.now();
    if (!dryRun) await this.finish(job, run);
    return run;
  }

  private async detect(job: Job, watermark: WatermarkValue, run: JobRunResult, dryRun: boolean, limit: number): Promise<void> {
    const { deps } = this;
    const mapping = deps.config.getMapping(job.mapping);
    if (!mapping) throw new PermanentError(`job "${job.name}": unknown mapping "${job.mapping}"`);
    const source = await deps.sources.source(job.source);
    const sender = dryRun ? undefined : deps.newSender();
    try {
      await this.read(job, mapping, source, watermark, run, sender, limit);
      await sender?.flushBatch();
    } finally {
      // What the bus accepted, not what was batched: a failed send leaves its batch unsent.
      if (sender) run.sentByQueue = sender.sentCounts();
    }
  }

  private async read(
    job: Job, mapping: Mapping, source: SourceConnector, watermark: WatermarkValue, run: JobRunResult, sender: BatchingSender | undefined, limit: number,
  ): Promise<void> {
    const { deps } = this;
    // Advancing to the tracker just advanced to is a no-op (and an exact string compare is far
    // cheaper than re-canonicalizing): rows of one bulk update share their change tracker.
    let advancedTo: string | undefined;
    const advance = (changeTracker: string) => {
      if (changeTracker === advancedTo) return;
      watermark.advance(changeTracker);
      advancedTo = changeTracker;
    };
    for await (const page of source.retrieveChanges(mapping, job, watermark)) {
      const unchanged = job.skipUnchanged && deps.unchanged && sender ? await deps.unchanged.unchanged(job, page.messages) : new Set<QueueMessage>();
      for (const stamp of page.timeStamps) {
        advance(stamp.changeTracker);
        run.timeStamps++;
        run.detected++;
      }
      for (const row of page.skipped ?? []) {
        run.detected++;
        recordSkippedRow(run, job, row, deps.log);
        advance(row.changeTracker);
      }
      for (const message of page.messages) {
        run.detected++;
        if (unchanged.has(message)) {
          run.timeStamps++;
        } else if (sender) {
          if (!job.skipFailedRows) await sender.addMessageOrSend(message, job.priority);
          else await sendOrSkip(() => sender.addMessageOrSend(message, job.priority), message, job, run, deps.log);
        } else {
          run.preview?.push(message);
          if ((run.preview?.length ?? 0) >= limit) return;
        }
        advance(message.changeTracker);
      }
    }
  }

  private async finish(job: Job, run: JobRunResult): Promise<void> {
    const { deps } = this;
    deps.metrics.track(METRIC_NAMES.changesDetected, run.detected, { job: job.name });
    deps.metrics.track(METRIC_NAMES.jobRunDurationMs, run.endedAt.getTime() - run.startedAt.getTime(), { job: job.name, outcome: run.outcome });
    try {
      await deps.runLog?.record(run);
    } catch (err) {
      deps.log.warn(`could not write the run log of job "${job.name}": ${errorMessage(err)}`);
    }
  }
}
