import type { MessageBus } from '../bus/message-bus';
import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { Job } from '../model/job';
import type { CouplingStore } from '../twoway/coupling-store';
import type { WatermarkStore } from '../model/watermark-record';
import { parseWatermarkType, WatermarkValue } from '../model/watermark-value';
import { nextOccurrence } from '../platform/schedule';
import type { Logger } from '../telemetry/logger';
import { METRIC_NAMES, type Metrics } from '../telemetry/metrics';
import { queueRoles, type QueueNames, type QueueRole } from '../platform/queue-topology';

export interface GaugeSources {
  /** The configured jobs (all of them; a disabled one gets no lag: nothing reads for it, and its watermark only ages). */
  jobs: () => readonly Job[];
  watermarks: Pick<WatermarkStore, 'getAllWatermarks'>;
  bus: Pick<MessageBus, 'counts'>;
  queues: QueueNames;
  metrics: Metrics;
  clock: Pick<Clock, 'now'>;
  /** Where a failed read is reported; the other gauges are still sampled. */
  log: Logger;
  /** The zone schedules are read in (the app's `timeZone` setting); default UTC. */
  timeZone?: string;
  /** The configured two-way pairs, and where their parked conflicts are. Default: none. */
  pairs?: { names: () => readonly string[]; conflicts: Pick<CouplingStore, 'listConflicts'> };
}

/** What one sample found (also what was tracked). */
export interface GaugeSample {
  lagSeconds: Record<string, number>;
  /** Per enabled job that has finished a read: {@link jobOverdueSeconds}. */
  overdueSeconds: Record<string, number>;
  /** False when the watermarks could not be read (then `lagSeconds` and `overdueSeconds` are empty for that reason). */
  lagSampled: boolean;
  depths: Array<{ queue: string; role: QueueRole; active: number; scheduled: number; deadLetter: number }>;
  /** Per configured pair: parked conflicts not resolved yet (absent when they could not be read). */
  openConflicts?: Record<string, number>;
}

/**
 * Seconds from a `datetime` watermark to `now`; null for other watermark types, for a job that
 * has no watermark yet (nothing stored, or the type's default `0001-01-01…`), and for values that
 * do not parse. Negative when the source's clock runs ahead.
 */
export function watermarkLagSeconds(type: string, watermark: string | null, now: Date): number | null {
  if (parseWatermarkType(type) !== 'datetime' || watermark === null || watermark.trim() === '') return null;
  if (watermark === WatermarkValue.initialize('datetime', null).value) return null;
  const at = Date.parse(watermark);
  return Number.isNaN(at) ? null : Math.round((now.getTime() - at) / 1000);
}

/**
 * How late a job is against its own schedule: seconds from the run that was due after its last
 * complete read (`lastCronRun`, the start of the last run that read the source to the end) to
 * `now`; 0 while that run is not due yet. Unlike the watermark's age this stays 0 over a quiet
 * source, and it grows for a job whose runs fail, hang or never finish a read. Null before the
 * first complete read and for a schedule that does not parse.
 */
export function jobOverdueSeconds(schedule: string, lastCronRun: Date | null, now: Date, timeZone = 'UTC'): number | null {
  if (lastCronRun === null) return null;
  let due: Date;
  try {
    due = nextOccurrence(schedule, lastCronRun, timeZone);
  } catch {
    return null;
  }
  return Math.max(0, Math.round((now.getTime() - due.getTime()) / 1000));
}

/**
 * Tracks the gauges: `WatermarkLagSeconds{job}` per enabled job with a datetime watermark,
 * `JobOverdueSeconds{job}` per enabled job that has finished a read, and
 * `QueueDepth{queue, role, state}` per queue with state `active`, `scheduled` and `deadLetter`,
 * `PairConflictsOpen{pair}` per configured two-way pair.
 * Called periodically (local host, a timer function in Azure); never throws.
 */
export async function sampleGauges(sources: GaugeSources): Promise<GaugeSample> {
  const { metrics, log } = sources;
  const now = sources.clock.now();
  const sample: GaugeSample = { lagSeconds: {}, overdueSeconds: {}, lagSampled: false, depths: [] };
  try {
    const records = await sources.watermarks.getAllWatermarks();
    for (const job of sources.jobs()) {
      // A disabled job's watermark ages while nothing reads for it: as a lag it would only raise the lag alert for ever.
      if (job.enabled === false) continue;
      const record = records.get(job.name);
      const overdue = jobOverdueSeconds(job.schedule, record?.lastCronRun ?? null, now, sources.timeZone);
      if (overdue !== null) {
        sample.overdueSeconds[job.name] = overdue;
        metrics.track(METRIC_NAMES.jobOverdueSeconds, overdue, { job: job.name });
      }
      const lag = watermarkLagSeconds(job.watermark.type, record?.watermark ?? null, now);
      if (lag === null) continue;
      sample.lagSeconds[job.name] = lag;
      metrics.track(METRIC_NAMES.watermarkLagSeconds, lag, { job: job.name });
    }
    sample.lagSampled = true;
  } catch (err) {
    log.warn(`watermark lag not sampled: ${errorMessage(err)}`);
  }
  for (const { queue, role } of queueRoles(sources.queues)) {
    try {
      const counts = await sources.bus.counts(queue);
      sample.depths.push({ queue, role, ...counts });
      metrics.track(METRIC_NAMES.queueDepth, counts.active, { queue, role, state: 'active' });
      metrics.track(METRIC_NAMES.queueDepth, counts.scheduled, { queue, role, state: 'scheduled' });
      metrics.track(METRIC_NAMES.queueDepth, counts.deadLetter, { queue, role, state: 'deadLetter' });
    } catch (err) {
      log.warn(`depth of queue ${queue} not sampled: ${errorMessage(err)}`);
    }
  }
  const pairs = sources.pairs?.names() ?? [];
  if (sources.pairs && pairs.length > 0) {
    try {
      const open = (await sources.pairs.conflicts.listConflicts()).filter((c) => c.resolution === undefined);
      for (const pair of pairs) {
        // Every pair, 0 included: an alert on the count must see it fall back.
        const count = open.filter((c) => c.pair === pair).length;
        (sample.openConflicts ??= {})[pair] = count;
        metrics.track(METRIC_NAMES.pairConflictsOpen, count, { pair });
      }
    } catch (err) {
      log.warn(`open conflicts not sampled: ${errorMessage(err)}`);
    }
  }
  return sample;
}

/**
 * Samples the gauges now and then every `intervalMs` (default 60 000) until the returned
 * function is called, handing each sample to `onSample` (the local host's incidents; what it
 * throws is logged). Samples do not overlap: a tick while one (with its `onSample`) runs is skipped.
 */
export function startGaugeSampler(sources: GaugeSources & { clock: Clock }, intervalMs = 60_000, onSample?: (sample: GaugeSample) => Promise<void>): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    void sampleGauges(sources)
      .then((sample) => onSample?.(sample))
      .catch((err: unknown) => sources.log.warn(`gauge sample not handled: ${errorMessage(err)}`))
      .finally(() => {
      running = false;
    });
  };
  tick();
  return sources.clock.every(intervalMs, tick);
}
