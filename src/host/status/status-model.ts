import type { ProcessOutcome } from '../../telemetry/metrics';
import type { QueueRole } from '../../platform/queue-topology';
import type { AlertConditionId, CauseKind } from '../../telemetry/alert-conditions';
import type { PushStatus } from './push-status';

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
  /** Two-way conflicts parked for an operator (`manual` policy), oldest first. */
  conflicts: ConflictStatus[];
  /** Set when the parked conflicts could not be read. */
  conflictsError?: string;
  /** The jobs that take pushed changes: their route and format, and Business Central's subscriptions. */
  push: PushStatus[];
  /**
   * The alert conditions (those the Azure alert rules fire on) as incidents: open ones first, then
   * those closed in the last 24 h. Kept by this host process, from its start.
   */
  incidents: IncidentStatus[];
  /** Target connections in outage mode: their messages wait, one probe goes through per interval. */
  targetOutages: TargetOutageStatus[];
  /** Target connections back from an outage whose deferred messages are still to come back (by `until`). */
  targetRecoveries: TargetRecoveryStatus[];
  queues: QueueStatus[];
  /** Messages that ended since the host started, per outcome (each once, however many attempts it took). */
  processedTotals: Record<ProcessOutcome, number>;
  /** Attempts since the host started: every processing, retries and deferrals included. */
  attemptTotal: number;
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

export interface IncidentStatus {
  id: string;
  condition: AlertConditionId;
  title: string;
  /** What the condition holds for: a `queue`, a `job` or a target `connection`. */
  causeKind: CauseKind;
  cause: string;
  /** What was found the last time the condition held. */
  detail: string;
  state: 'open' | 'closed';
  openedAt: string;
  closedAt: string | null;
}

interface TargetOutageStatus {
  connection: string;
  since: string;
  nextProbeAt: string;
  error: string;
  failures: number;
}

interface TargetRecoveryStatus {
  connection: string;
  until: string;
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
  /**
   * How far the job is behind its source, in seconds: since the start of its last run that read
   * the source to the end (`LastCronRun`) — a change made since may not have been read yet. Null
   * when no run has finished a read, and for disabled jobs (nothing reads for them).
   */
  lagSeconds: number | null;
  /** Now − the watermark's value, for datetime watermarks: the age of the newest change read (not a lag: a quiet source has an old one). */
  watermarkAgeSeconds: number | null;
  /** Jobs whose responses this job's queue receives (it is their `responseJob`). */
  fedBy: string[];
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
  /** Messages of this queue that ended in this host, per outcome (each once). */
  processed: Record<ProcessOutcome, number>;
  /** Attempts of this host on this queue's messages (retries and deferrals included). */
  attempts: number;
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
  /** The outcome as shown: `Failed (retrying at …)`, `Stopped (time budget)`, `Interrupted` (see `run-outcome.ts`). */
  outcomeText: string;
  error?: string;
  /**
   * Set on a row standing for several runs of the job that found nothing (the newest shown):
   * how many, and when the oldest of them started.
   */
  collapsed?: { runs: number; since: string };
}

export interface FailureGroup {
  error: string;
  /** Failed attempts seen by this host recently (bounded list). */
  count: number;
  /** Distinct messages among those attempts. */
  messages: number;
  /** Messages with this error waiting in dead-letter subqueues now (peeked, so at most the peek limit per queue). */
  deadLettered: number;
  /** Last failure seen by this host; null when the group is known from dead letters only. */
  lastAt: string | null;
  jobs: string[];
}

export interface ThroughputBucket {
  /** Start of the minute. */
  start: string;
  counts: Record<ProcessOutcome, number>;
}

export const OUTCOMES: readonly ProcessOutcome[] = ['Success', 'Superseded', 'Deferred', 'Transitive', 'Ignored', 'Failed'];

/** The outcomes a message can end with (a deferral always brings it back): the columns of messages processed. */
export const ENDED: readonly ProcessOutcome[] = OUTCOMES.filter((o) => o !== 'Deferred');

export function zeroOutcomes(): Record<ProcessOutcome, number> {
  return { Success: 0, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 0, Failed: 0 };
}

/** A two-way conflict parked for an operator: both versions, and the command that resolves it. */
export interface ConflictStatus {
  pair: string;
  keyA: string;
  keyB: string;
  fields: string[];
  a: { values: Record<string, unknown>; tracker: string | null; deleted: boolean };
  b: { values: Record<string, unknown>; tracker: string | null; deleted: boolean };
  detectedAt: string;
  /** The side an operator chose, while the record's next sync has not applied it yet. */
  resolution: 'a' | 'b' | null;
}
