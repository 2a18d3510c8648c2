import type { MessageBus } from '../../bus/message-bus';
import type { OutageState } from '../../process/target-health';
import type { Settings } from '../../config/settings';
import { totalSent, type JobRunResult } from '../../detect/job-run';
import type { JobService } from '../../detect/job-service';
import type { RunLogStore } from '../../detect/run-log-store';
import type { Clock } from '../../model/clock';
import type { HighwaterConfig } from '../../model/config';
import { errorMessage } from '../../model/errors';
import type { WatermarkRecord, WatermarkStore } from '../../model/watermark-record';
import { queueRoles, watermarkLagSeconds } from '../../telemetry/gauges';
import type { Metrics } from '../../telemetry/metrics';
import type { HostStats } from '../host-stats';
import { zeroOutcomes, type JobStatus, type QueueStatus, type RunStatus, type StatusModel } from './status-model';
import { throughputLastHour } from './throughput';

/** What the status page reads; the runtime provides all of it (narrowed for tests). */
export interface StatusSources {
  settings: Pick<Settings, 'queues'>;
  init: { ensureInitialized(): Promise<HighwaterConfig> };
  watermarks: Pick<WatermarkStore, 'getAllWatermarks'>;
  jobs: Pick<JobService, 'nextRun'>;
  runLog: Pick<RunLogStore, 'latest'>;
  bus: Pick<MessageBus, 'counts' | 'peek'>;
  metrics: Metrics;
  clock: Pick<Clock, 'now'>;
  /** Target connections in outage mode. Default: none known. */
  targetHealth?: { snapshot(): OutageState[] };
}

export type StatusStats = Pick<HostStats, 'startedAt' | 'processed' | 'recentRuns' | 'recentProcessed' | 'failuresByMessage'>;

/** Recent runs shown on the page. */
const RECENT_RUNS = 20;
/** Failure groups shown on the page. */
const FAILURE_GROUPS = 20;

/**
 * Builds the status model from live state: configuration, watermarks, the runs table, queue
 * counts, host stats and metrics. A part that cannot be read is reported in the model (the page
 * still shows the rest).
 */
export async function buildStatus(sources: StatusSources, stats: StatusStats): Promise<StatusModel> {
  const now = sources.clock.now();
  const throughput = throughputLastHour(sources.metrics, stats, now);
  const [jobsPart, queues, recentRuns] = await Promise.all([jobStatuses(sources, now), queueStatuses(sources, stats), runs(sources, stats)]);
  const processedTotals = zeroOutcomes();
  for (const byOutcome of stats.processed.values()) for (const [outcome, n] of byOutcome) processedTotals[outcome] += n;
  return {
    generatedAt: now.toISOString(),
    startedAt: stats.startedAt.toISOString(),
    ...(jobsPart.configError ? { configError: jobsPart.configError } : {}),
    jobs: jobsPart.jobs,
    targetOutages: (sources.targetHealth?.snapshot() ?? []).map((o) => ({
      connection: o.connection,
      since: o.since.toISOString(),
      nextProbeAt: o.nextProbeAt.toISOString(),
      error: o.error,
      failures: o.failures,
    })),
    queues,
    processedTotals,
    recentRuns,
    failures: stats
      .failuresByMessage()
      .slice(0, FAILURE_GROUPS)
      .map((f) => ({ error: f.error, count: f.count, lastAt: f.lastAt.toISOString(), jobs: f.jobs })),
    throughput: throughput.buckets,
    detectedLastHour: throughput.detected,
    throughputSource: throughput.source,
  };
}

async function jobStatuses(sources: StatusSources, now: Date): Promise<{ jobs: JobStatus[]; configError?: string }> {
  let config: HighwaterConfig;
  try {
    config = await sources.init.ensureInitialized();
  } catch (err) {
    return { jobs: [], configError: errorMessage(err) };
  }
  let records = new Map<string, WatermarkRecord>();
  let watermarkProblem: string | undefined;
  try {
    records = await sources.watermarks.getAllWatermarks();
  } catch (err) {
    watermarkProblem = `watermarks not readable: ${errorMessage(err)}`;
  }
  const ordered = [...config.jobs].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const jobs = await Promise.all(
    ordered.map(async (job): Promise<JobStatus> => {
      const record = records.get(job.name);
      const problems = watermarkProblem ? [watermarkProblem] : [];
      let nextRun: string | null = null;
      try {
        nextRun = sources.jobs.nextRun(job, now)?.toISOString() ?? null;
      } catch (err) {
        problems.push(errorMessage(err));
      }
      let lastRun: RunStatus | null = null;
      try {
        const [latest] = await sources.runLog.latest(job.name, 1);
        lastRun = latest ? runStatus(latest) : null;
        // Failure backoff (src/detect/run-settings.ts): the timer leaves the job alone until then.
        if (latest?.retryAt && latest.retryAt.getTime() > now.getTime()) problems.push(`last run failed; retrying at ${latest.retryAt.toISOString()}`);
      } catch (err) {
        problems.push(`runs not readable: ${errorMessage(err)}`);
      }
      const watermark = record?.watermark ?? null;
      return {
        name: job.name,
        enabled: job.enabled,
        schedule: job.schedule,
        priority: job.priority,
        order: job.order,
        lastCronRun: record?.lastCronRun?.toISOString() ?? null,
        nextRun,
        watermarkType: job.watermark.type,
        watermark,
        lagSeconds: watermarkLagSeconds(job.watermark.type, watermark, now),
        lastRun,
        ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
      };
    }),
  );
  return { jobs };
}

async function queueStatuses(sources: StatusSources, stats: StatusStats): Promise<QueueStatus[]> {
  return Promise.all(
    queueRoles(sources.settings.queues).map(async ({ queue, role }): Promise<QueueStatus> => {
      const processed = zeroOutcomes();
      for (const [outcome, n] of stats.processed.get(queue) ?? []) processed[outcome] = n;
      try {
        const counts = await sources.bus.counts(queue);
        return { queue, role, active: counts.active, scheduled: counts.scheduled, deadLetter: counts.deadLetter, processed };
      } catch (err) {
        return { queue, role, active: null, scheduled: null, deadLetter: null, processed, problem: errorMessage(err) };
      }
    }),
  );
}

/** The runs table (it outlives the host); the host's own list when the table cannot be read. */
async function runs(sources: StatusSources, stats: StatusStats): Promise<RunStatus[]> {
  let latest: JobRunResult[];
  try {
    latest = await sources.runLog.latest(undefined, RECENT_RUNS);
  } catch {
    latest = [...stats.recentRuns].reverse().slice(0, RECENT_RUNS);
  }
  return latest.map(runStatus);
}

function runStatus(run: JobRunResult): RunStatus {
  return {
    job: run.jobName,
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    durationMs: run.endedAt.getTime() - run.startedAt.getTime(),
    detected: run.detected,
    sent: totalSent(run),
    outcome: run.outcome,
    ...(run.error ? { error: run.error } : {}),
  };
}
