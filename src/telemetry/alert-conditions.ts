import { METRIC_NAMES, type MetricName } from './metrics';

/**
 * The conditions an operator is told about: one list for both sides. In Azure each is an Azure
 * Monitor log search alert rule on the metrics below (`infra/modules/alerts.bicep`, queries in
 * `infra/alerts/`); on the local host each is an "incident" on the status page and in
 * `/api/status` (`src/host/incidents`). A test checks the Bicep against this list: the same
 * metric, window, split and default threshold.
 */

export type AlertConditionId = 'deadLettersRising' | 'parkedGrowing' | 'jobFailing' | 'targetOutage' | 'lagBeyond';

/** What a condition holds for, one alert (one incident) each: the dimension its alert rule splits by. */
export type CauseKind = 'queue' | 'job' | 'connection';

export interface AlertCondition {
  readonly id: AlertConditionId;
  /** Short title, as the alert rule's display name and the incident's heading. */
  readonly title: string;
  /** When it holds (threshold as `{threshold}`), as the alert rule's description. */
  readonly description: string;
  readonly cause: CauseKind;
  /** The metric its query reads. */
  readonly metric: MetricName;
  /** The Bicep parameter (of `infra/main.bicep` and the alerts module) holding the threshold; none: the condition has no threshold. */
  readonly thresholdParam?: string;
  /** The threshold's default, in the unit the description names. */
  readonly defaultThreshold?: number;
  /** How far back the condition looks, as ISO 8601 (the alert rule's window). */
  readonly window: string;
  /** The same window in milliseconds. */
  readonly windowMs: number;
  /** Azure Monitor severity: 0 critical … 4 verbose. */
  readonly severity: 0 | 1 | 2 | 3 | 4;
  /** The query file under `infra/alerts/`. */
  readonly queryFile: string;
}

const MINUTE = 60_000;

export const ALERT_CONDITIONS: readonly AlertCondition[] = [
  {
    id: 'deadLettersRising',
    title: 'Dead letters rising',
    description: "A queue's dead-letter subqueue (a work, parked or ignored queue) holds at least {threshold} more messages than at its lowest in the last 15 minutes.",
    cause: 'queue',
    metric: METRIC_NAMES.queueDepth,
    thresholdParam: 'alertDeadLetterRise',
    defaultThreshold: 1,
    window: 'PT15M',
    windowMs: 15 * MINUTE,
    severity: 2,
    queryFile: 'dead-letters-rising.kql',
  },
  {
    id: 'parkedGrowing',
    title: 'Parked messages growing',
    description: 'A transitive (parked) queue holds at least {threshold} more messages than at its lowest in the last hour.',
    cause: 'queue',
    metric: METRIC_NAMES.queueDepth,
    thresholdParam: 'alertParkedRise',
    defaultThreshold: 10,
    window: 'PT1H',
    windowMs: 60 * MINUTE,
    severity: 3,
    queryFile: 'parked-growing.kql',
  },
  {
    id: 'jobFailing',
    title: 'Job failing repeatedly',
    description: 'A job failed at least {threshold} runs in a row (since its last successful run, within the last day).',
    cause: 'job',
    metric: METRIC_NAMES.jobRunDurationMs,
    thresholdParam: 'alertJobFailedRuns',
    defaultThreshold: 3,
    window: 'P1D',
    windowMs: 24 * 60 * MINUTE,
    severity: 1,
    queryFile: 'job-failing.kql',
  },
  {
    id: 'targetOutage',
    title: 'Target in outage',
    description: 'A target connection is in outage mode: its messages wait in their queues, one probe goes through per interval.',
    cause: 'connection',
    metric: METRIC_NAMES.targetOutage,
    window: 'PT30M',
    windowMs: 30 * MINUTE,
    severity: 1,
    queryFile: 'target-outage.kql',
  },
  {
    id: 'lagBeyond',
    title: 'Job behind its schedule',
    description: 'An enabled job has not finished a read of its source for more than {threshold} seconds after its schedule said it should.',
    cause: 'job',
    metric: METRIC_NAMES.jobOverdueSeconds,
    thresholdParam: 'alertLagSeconds',
    defaultThreshold: 3600,
    window: 'PT15M',
    windowMs: 15 * MINUTE,
    severity: 2,
    queryFile: 'lag-beyond.kql',
  },
];

/** The thresholds in force, by condition (those without a threshold are absent). */
export type AlertThresholds = Partial<Record<AlertConditionId, number>>;

/** Every condition's default threshold. */
export function defaultAlertThresholds(): AlertThresholds {
  const thresholds: AlertThresholds = {};
  for (const c of ALERT_CONDITIONS) if (c.defaultThreshold !== undefined) thresholds[c.id] = c.defaultThreshold;
  return thresholds;
}

/** The condition of an id. @throws Error for an id not in {@link ALERT_CONDITIONS} (a programming error). */
export function alertCondition(id: AlertConditionId): AlertCondition {
  const found = ALERT_CONDITIONS.find((c) => c.id === id);
  if (!found) throw new Error(`unknown alert condition ${id}`);
  return found;
}
