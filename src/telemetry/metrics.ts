import { systemClock, type Clock } from '../platform/clock';

/**
 * The metrics port. Names and dimensions are fixed here so that dashboards (KQL) can be checked
 * against what the code emits.
 */
export const METRIC_NAMES = {
  changesDetected: 'ChangesDetected',
  messagesProcessed: 'MessagesProcessed',
  processingDurationMs: 'ProcessingDurationMs',
  jobRunDurationMs: 'JobRunDurationMs',
  watermarkLagSeconds: 'WatermarkLagSeconds',
  /** Per enabled job: seconds since the run after its last complete read was due (0 while on schedule). */
  jobOverdueSeconds: 'JobOverdueSeconds',
  queueDepth: 'QueueDepth',
  /** 1 when a target connection enters its outage mode and at each failed probe during it, 0 when it answers again. */
  targetOutage: 'TargetOutage',
  /** Per pair: conflicts parked for an operator (`manual` policy) and not resolved yet. */
  pairConflictsOpen: 'PairConflictsOpen',
} as const;

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];

/**
 * The dimensions each metric carries. Emitters pass exactly these (a test scans `src/` for
 * `track(METRIC_NAMES.x, …, { … })` calls and the workbook's KQL against this table).
 * - `job`: job name; `queue`: queue name; `outcome`: {@link ProcessOutcome} for messages,
 *   `Succeeded | Failed` for job runs.
 * - `QueueDepth.role`: `work | transitive | ignored`; `QueueDepth.state`: `active | scheduled | deadLetter`.
 */
export const METRIC_DIMENSIONS: Readonly<Record<MetricName, readonly string[]>> = {
  ChangesDetected: ['job'],
  MessagesProcessed: ['job', 'queue', 'outcome'],
  ProcessingDurationMs: ['job', 'queue', 'outcome'],
  JobRunDurationMs: ['job', 'outcome'],
  WatermarkLagSeconds: ['job'],
  JobOverdueSeconds: ['job'],
  QueueDepth: ['queue', 'role', 'state'],
  TargetOutage: ['connection'],
  PairConflictsOpen: ['pair'],
};

/** Outcome dimension of `MessagesProcessed`. */
export type ProcessOutcome = 'Success' | 'Superseded' | 'Deferred' | 'Transitive' | 'Ignored' | 'Failed';

export type Dimensions = Record<string, string>;

export interface MetricPoint {
  name: MetricName;
  /** The value tracked, or the sum of the values a rolled-up point stands for. */
  value: number;
  dimensions: Dimensions;
  /** When tracked; for a rolled-up point the start of the period it covers. */
  at: Date;
  /**
   * How many values a rolled-up point stands for (`LocalMetrics` rolls up per second). Absent = 1:
   * one point per value tracked, as `InMemoryMetrics` keeps them.
   */
  count?: number;
}

export interface Metrics {
  /** Records one value; never throws (telemetry must not fail the work it observes). */
  track(name: MetricName, value: number, dimensions?: Dimensions): void;
  /** Sends what is buffered; resolves when done or given up. */
  flush(): Promise<void>;
}

/** Metrics that can be read back (the local status page charts from them). */
export interface MetricsReader {
  /** Points recorded at or after `since`, oldest first; of one metric when `name` is given. */
  pointsSince(since: Date, name?: MetricName): MetricPoint[];
}

export function isMetricsReader(metrics: Metrics): metrics is Metrics & MetricsReader {
  return typeof (metrics as Partial<MetricsReader>).pointsSince === 'function';
}

/** Keeps points in memory (bounded: the newest `maxPoints`, at most a quarter more between trims); used locally and in tests. */
export class InMemoryMetrics implements Metrics, MetricsReader {
  readonly points: MetricPoint[] = [];
  constructor(
    private readonly maxPoints = 100_000,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  track(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    this.points.push({ name, value, dimensions, at: this.clock.now() });
    // Trimmed in chunks of a quarter: splice moves the whole array, so trimming one point per
    // call made every call O(maxPoints) once full (half of a busy host's processing time).
    if (this.points.length > this.maxPoints + Math.ceil(this.maxPoints / 4)) this.points.splice(0, this.points.length - this.maxPoints);
  }

  async flush(): Promise<void> {}

  /** Sum of values of `name` whose dimensions include all of `filter`. */
  sum(name: MetricName, filter: Dimensions = {}): number {
    return this.points
      .filter((p) => p.name === name && Object.entries(filter).every(([k, v]) => p.dimensions[k] === v))
      .reduce((total, p) => total + p.value, 0);
  }

  pointsSince(since: Date, name?: MetricName): MetricPoint[] {
    const from = since.getTime();
    return this.points.filter((p) => p.at.getTime() >= from && (name === undefined || p.name === name));
  }
}
