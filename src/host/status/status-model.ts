import type { ProcessOutcome } from '../../telemetry/metrics';
import type { QueueRole } from '../../telemetry/gauges';

/**
 * What `GET /api/status` answers and the status page renders. Times are ISO 8601 UTC strings;
 * `null` means "not known / never".
 */
export interface StatusModel {
  generatedAt: string;
  /** When the local host started. */
  startedAt: string;
  /** Set when the configuration could not be loaded (jobs are then empty). */
  configError?: string;
  jobs: JobStatus[];
  /** Target connections in outage mode: their messages wait, one probe goes through per interval. */
  targetOutages: TargetOutageStatus[];
  queues: QueueStatus[];
  /** Processed since the host started, per outcome. */
  processedTotals: Record<ProcessOutcome, number>;
  /** Newest first. */
  recentRuns: RunStatus[];
  /** Recent failures grouped by error message, most frequent first. */
  failures: FailureGroup[];
  /** Processed messages per minute over the last hour, oldest bucket first. */
  throughput: ThroughputBucket[];
  /** Changes detected in the last hour (sum of `ChangesDetected`). */
  detectedLastHour: number;
  /** Where the throughput comes from: the metrics adapter, or the host's bounded recent list. */
  throughputSource: 'metrics' | 'hostStats';
}

export interface TargetOutageStatus {
  connection: string;
  since: string;
  nextProbeAt: string;
  error: string;
  failures: number;
}

export interface JobStatus {
  name: string;
  enabled: boolean;
  schedule: string;
  priority: string;
  order: number;
  /** `LastCronRun`: start of the last run that wrote the watermark. */
  lastCronRun: string | null;
  /** Next schedule occurrence (null for disabled jobs). */
  nextRun: string | null;
  watermarkType: string;
  watermark: string | null;
  /** Seconds behind now, for datetime watermarks (see `watermarkLagSeconds`). */
  lagSeconds: number | null;
  /** The newest recorded run of the job. */
  lastRun: RunStatus | null;
  /** Why the job's schedule or state could not be read. */
  problem?: string;
}

export interface QueueStatus {
  queue: string;
  role: QueueRole;
  /** Null when the bus could not be asked (see `problem`). */
  active: number | null;
  scheduled: number | null;
  deadLetter: number | null;
  /** Processed by this host from this queue, per outcome. */
  processed: Record<ProcessOutcome, number>;
  problem?: string;
}

export interface RunStatus {
  job: string;
  trigger: string;
  startedAt: string;
  durationMs: number;
  detected: number;
  sent: number;
  outcome: 'Succeeded' | 'Failed';
  error?: string;
}

export interface FailureGroup {
  error: string;
  count: number;
  lastAt: string;
  jobs: string[];
}

export interface ThroughputBucket {
  /** Start of the minute. */
  start: string;
  counts: Record<ProcessOutcome, number>;
}

export const OUTCOMES: readonly ProcessOutcome[] = ['Success', 'Superseded', 'Deferred', 'Transitive', 'Ignored', 'Failed'];

export function zeroOutcomes(): Record<ProcessOutcome, number> {
  return { Success: 0, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 0, Failed: 0 };
}
