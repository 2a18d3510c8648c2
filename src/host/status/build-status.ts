import type { MessageBus } from '../../bus/message-bus';
import type { OutageState, RecoveryState } from '../../process/target-health';
import type { Settings } from '../../platform/settings';
import type { JobRunResult } from '../../detect/job-run';
import type { JobService } from '../../detect/job-service';
import type { RunLogStore } from '../../detect/run-log-store';
import type { Clock } from '../../platform/clock';
import type { HighwaterConfig } from '../../model/config';
import { errorMessage } from '../../platform/errors';
import { normalizeErrorMessage } from '../../mover/normalize-error';
import type { WatermarkRecord, WatermarkStore } from '../../model/watermark-record';
import { watermarkLagSeconds } from '../../runtime/gauges';
import type { Metrics } from '../../telemetry/metrics';
import type { HostStats } from '../host-stats';
import type { Incident } from '../incidents/incident-lifecycle';
import { buildDeadLetterReport, type ParkedGroup } from './dead-letter-report';
import type { MetricsFileHistory } from './metrics-history';
import { recentRunRows, runStatus } from './recent-runs';
import { zeroOutcomes, type FailureGroup, type JobStatus, type QueueStatus, type RunStatus, type StatusModel } from './status-model';
import { throughputLastHour } from './throughput';
import { queueRoles } from '../../platform/queue-topology';
import type { SubscriptionKeeper } from '../../push/subscription-keeper';
import { pushStatuses } from './push-status';
import type { CouplingStore } from '../../twoway/coupling-store';
import { conflictStatuses } from './conflict-status';

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
  /** Target connections in outage mode, and those recovering from one. Default: none known. */
  targetHealth?: { snapshot(): OutageState[]; recoveries?(now: Date): RecoveryState[] };
  /** The host's incidents. Default: none known. */
  incidents?: { list(): Incident[] };
  /** The last hour before this host started, from the metrics file. Default: none (only what this process tracked). */
  metricsHistory?: Pick<MetricsFileHistory, 'points'>;
  /** Two-way sync's parked conflicts. Default: none known. */
  couplings?: Pick<CouplingStore, 'listConflicts'>;
  /** What the Business Central subscription keeper knows. Default: nothing (every subscription shows as not kept yet). */
  subscriptions?: Pick<SubscriptionKeeper, 'known'>;
}

export type StatusStats = Pick<HostStats, 'startedAt' | 'processed' | 'attemptCount' | 'recentRuns' | 'recentProcessed' | 'failuresByMessage'>;

/** Rows of recent runs shown on the page (no-op runs of a job collapse into one). */
const RECENT_RUNS = 20;
/** Runs read to fill them: enough for 20 rows when most runs found nothing. */
const RUNS_READ = 500;
/** Failure groups shown on the page. */
const FAILURE_GROUPS = 20;

/**
 * Builds the status model from live state: configuration, watermarks, the runs table, queue
 * counts, host stats and metrics. A part that cannot be read is reported in the model (the page
 * still shows the rest).
 */
export async function buildStatus(sources: StatusSources, stats: StatusStats): Promise<StatusModel> {
  const now = sources.clock.now();
  const history = (await sources.metricsHistory?.points()) ?? [];
  const throughput = throughputLastHour(sources.metrics, stats, now, 60, history);
  const [jobsPart, queues, recentRuns, deadLetters, conflicts] = await Promise.all([
    jobStatuses(sources, now),
    queueStatuses(sources, stats),
    runs(sources, stats),
    deadLetterGroups(sources),
    conflictStatuses(sources.couplings),
  ]);
  const processedTotals = zeroOutcomes();
  for (const byOutcome of stats.processed.values()) for (const [outcome, n] of byOutcome) processedTotals[outcome] += n;
  return {
    generatedAt: now.toISOString(),
    startedAt: stats.startedAt.toISOString(),
    ...(jobsPart.configError ? { configError: jobsPart.configError } : {}),
    jobs: jobsPart.jobs,
    ...conflicts,
    push: jobsPart.config ? pushStatuses(jobsPart.config, sources.subscriptions?.known() ?? [], now) : [],
    incidents: (sources.incidents?.list() ?? []).map((i) => ({
      id: i.id,
      condition: i.condition,
      title: i.title,
      causeKind: i.causeKind,
      cause: i.cause,
      detail: i.detail,
      state: i.closedAt === null ? 'open' : 'closed',
      openedAt: i.openedAt.toISOString(),
      closedAt: i.closedAt?.toISOString() ?? null,
    })),
    targetOutages: (sources.targetHealth?.snapshot() ?? []).map((o) => ({
      connection: o.connection,
      since: o.since.toISOString(),
      nextProbeAt: o.nextProbeAt.toISOString(),
      error: o.error,
      failures: o.failures,
    })),
    targetRecoveries: (sources.targetHealth?.recoveries?.(now) ?? []).map((r) => ({ connection: r.connection, until: r.until.toISOString() })),
    queues,
    processedTotals,
    attemptTotal: stats.attemptCount(),
    recentRuns,
    failures: failureGroups(stats, deadLetters).slice(0, FAILURE_GROUPS),
    throughput: throughput.buckets,
    detectedLastHour: throughput.detected,
    throughputSource: throughput.source,
  };
}

async function jobStatuses(sources: StatusSources, now: Date): Promise<{ jobs: JobStatus[]; config?: HighwaterConfig; configError?: string }> {
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
  const fedBy = (name: string) => config.jobs.filter((j) => j.responseJob === name).map((j) => j.name).sort();
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
      const lastCronRun = record?.lastCronRun ?? null;
      return {
        name: job.name,
        enabled: job.enabled,
        schedule: job.schedule,
        priority: job.priority,
        order: job.order,
        lastCronRun: lastCronRun?.toISOString() ?? null,
        nextRun,
        watermarkType: job.watermark.type,
        watermark,
        // Behind its source: since the start of the last run that read it to the end. Not now −
        // watermark: a caught-up job over a quiet source showed "334d 22h" that way.
        lagSeconds: job.enabled && lastCronRun ? Math.max(0, (now.getTime() - lastCronRun.getTime()) / 1000) : null,
        watermarkAgeSeconds: watermarkLagSeconds(job.watermark.type, watermark, now),
        fedBy: fedBy(job.name),
        lastRun,
        ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
      };
    }),
  );
  return { jobs, config };
}

async function queueStatuses(sources: StatusSources, stats: StatusStats): Promise<QueueStatus[]> {
  return Promise.all(
    queueRoles(sources.settings.queues).map(async ({ queue, role }): Promise<QueueStatus> => {
      const processed = zeroOutcomes();
      for (const [outcome, n] of stats.processed.get(queue) ?? []) processed[outcome] = n;
      try {
        const counts = await sources.bus.counts(queue);
        return { queue, role, active: counts.active, scheduled: counts.scheduled, deadLetter: counts.deadLetter, processed, attempts: stats.attemptCount(queue) };
      } catch (err) {
        return { queue, role, active: null, scheduled: null, deadLetter: null, processed, attempts: stats.attemptCount(queue), problem: errorMessage(err) };
      }
    }),
  );
}

/** The runs table (it outlives the host); the host's own list when the table cannot be read. */
async function runs(sources: StatusSources, stats: StatusStats): Promise<RunStatus[]> {
  let latest: JobRunResult[];
  try {
    latest = await sources.runLog.latest(undefined, RUNS_READ);
  } catch {
    latest = [...stats.recentRuns].reverse();
  }
  return recentRunRows(latest, RECENT_RUNS);
}

/** Groups of the dead-letter subqueues (peeked); none when the bus cannot be read (the queues section says so). */
async function deadLetterGroups(sources: StatusSources): Promise<ParkedGroup[]> {
  try {
    const report = await buildDeadLetterReport(sources.bus, sources.settings.queues);
    return report.filter((s) => s.subQueue === 'deadLetter').flatMap((s) => s.groups);
  } catch {
    return [];
  }
}

/**
 * Failures by error: what this host saw fail recently, and what waits in dead-letter subqueues
 * (dead-lettered before a restart, or pushed out of the host's bounded list by later messages),
 * merged by error text. Most frequent first.
 */
function failureGroups(stats: StatusStats, deadLetters: readonly ParkedGroup[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  // The dead-letter groups are keyed by the mover's normalised text: the host's own failures are
  // too, so `missing parent C-0042` seen here and dead-lettered there is one row.
  for (const f of stats.failuresByMessage()) {
    const key = normalizeErrorMessage(f.error);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { error: key, count: f.count, messages: f.messages, deadLettered: 0, lastAt: f.lastAt.toISOString(), jobs: f.jobs });
      continue;
    }
    group.count += f.count;
    group.messages += f.messages;
    if (group.lastAt === null || f.lastAt.toISOString() > group.lastAt) group.lastAt = f.lastAt.toISOString();
    group.jobs = [...new Set([...group.jobs, ...f.jobs])].sort();
  }
  for (const d of deadLetters) {
    const group = groups.get(d.reason) ?? { error: d.reason, count: 0, messages: 0, deadLettered: 0, lastAt: null, jobs: [] };
    group.deadLettered += d.count;
    group.jobs = [...new Set([...group.jobs, ...d.jobs])].sort();
    groups.set(d.reason, group);
  }
  return [...groups.values()].sort((a, b) => b.count + b.deadLettered - (a.count + a.deadLettered));
}
