import { isMetricsReader, METRIC_NAMES, type MetricPoint, type Metrics, type ProcessOutcome } from '../../telemetry/metrics';
import type { HostStats } from '../host-stats';
import { OUTCOMES, zeroOutcomes, type ThroughputBucket } from './status-model';

const MINUTE_MS = 60_000;

/** One processed-message event as the charts count it. */
interface ProcessedEvent {
  at: Date;
  outcome: ProcessOutcome;
  count: number;
}

/**
 * Processed messages per minute, by outcome, for the `minutes` minutes up to `now` (the current,
 * partial minute last). Reads `MessagesProcessed` points from the metrics adapter when it can be
 * read back; otherwise the host's recent list (bounded, so busy hours are undercounted, which
 * `source` tells the page). `history`: points from before this host started (the metrics file,
 * `metrics-history.ts`), counted with the adapter's, which hold only this process's.
 */
export function throughputLastHour(
  metrics: Metrics,
  stats: Pick<HostStats, 'recentProcessed'>,
  now: Date,
  minutes = 60,
  history: readonly MetricPoint[] = [],
): { buckets: ThroughputBucket[]; detected: number; source: 'metrics' | 'hostStats' } {
  const firstStart = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - (minutes - 1) * MINUTE_MS;
  const since = new Date(firstStart);
  let events: ProcessedEvent[];
  let detected = 0;
  let source: 'metrics' | 'hostStats';
  if (isMetricsReader(metrics)) {
    source = 'metrics';
    const recent = (name: MetricPoint['name']) => [...history.filter((p) => p.name === name && p.at >= since), ...metrics.pointsSince(since, name)];
    events = recent(METRIC_NAMES.messagesProcessed)
      .filter((p) => isOutcome(p.dimensions.outcome))
      .map((p) => ({ at: p.at, outcome: p.dimensions.outcome as ProcessOutcome, count: p.value }));
    detected = recent(METRIC_NAMES.changesDetected).reduce((total, p) => total + p.value, 0);
  } else {
    source = 'hostStats';
    events = stats.recentProcessed.filter((e) => e.at >= since).map((e) => ({ at: e.at, outcome: e.outcome, count: 1 }));
  }
  const buckets: ThroughputBucket[] = Array.from({ length: minutes }, (_, i) => ({
    start: new Date(firstStart + i * MINUTE_MS).toISOString(),
    counts: zeroOutcomes(),
  }));
  for (const e of events) {
    const index = Math.floor((e.at.getTime() - firstStart) / MINUTE_MS);
    if (index >= 0 && index < minutes) buckets[index].counts[e.outcome] += e.count;
  }
  return { buckets, detected, source };
}

/** Totals per outcome over the buckets. */
export function outcomeTotals(buckets: readonly ThroughputBucket[]): Record<ProcessOutcome, number> {
  const totals = zeroOutcomes();
  for (const b of buckets) for (const o of OUTCOMES) totals[o] += b.counts[o];
  return totals;
}

function isOutcome(value: string | undefined): value is ProcessOutcome {
  return (OUTCOMES as readonly string[]).includes(value ?? '');
}
