import type { QueueRole } from '../../platform/queue-topology';
import { ALERT_CONDITIONS, type AlertCondition, type AlertConditionId, type AlertThresholds, type CauseKind } from '../../telemetry/alert-conditions';
import { formatSeconds } from '../status/html';

/**
 * Which alert conditions hold now, per cause: the local host's reading of the rules Azure Monitor
 * evaluates (`infra/alerts/*.kql`), on the same quantities — the gauge samples behind
 * `QueueDepth` and `JobOverdueSeconds`, the runs behind `JobRunDurationMs`, the outage mode
 * behind `TargetOutage`. Pure: time and every input are passed in.
 */

/** One sampled depth of a queue (a `QueueDepth` gauge sample). */
export interface DepthPoint {
  at: Date;
  queue: string;
  role: QueueRole;
  active: number;
  deadLetter: number;
}

/** One recorded run of a job (newest first in {@link IncidentObservation.runs}). */
export interface RunPoint {
  startedAt: Date;
  outcome: 'Succeeded' | 'Failed';
  error?: string;
}

/** An outage mode in force (from the target health snapshot). */
interface OutagePoint {
  connection: string;
  since: Date;
  failures: number;
  error: string;
}

/** What the host knows at one evaluation. A part that could not be read is `undefined`: its conditions are left as they were. */
export interface IncidentObservation {
  /** Depth samples of the longest window of the queue conditions, any order. */
  depths?: readonly DepthPoint[];
  /** The newest `JobOverdueSeconds` sample per job (jobs without one are absent). */
  overdueSeconds?: Readonly<Record<string, number>>;
  /** Per job, its newest runs, newest first (at least as many as the failed-runs threshold, where there are). */
  runs?: ReadonlyMap<string, readonly RunPoint[]>;
  outages?: readonly OutagePoint[];
}

/** A condition holding for one cause now. */
export interface Finding {
  condition: AlertConditionId;
  causeKind: CauseKind;
  cause: string;
  /** What was found, for the operator. */
  detail: string;
}

/** The outcome of one evaluation: what holds, and which conditions could not be evaluated (their incidents stay as they are). */
export interface Findings {
  holding: Finding[];
  undetermined: AlertConditionId[];
}

export function findConditions(observation: IncidentObservation, thresholds: AlertThresholds, now: Date): Findings {
  const holding: Finding[] = [];
  const undetermined: AlertConditionId[] = [];
  for (const condition of ALERT_CONDITIONS) {
    const found = evaluate(condition, observation, thresholds[condition.id] ?? condition.defaultThreshold ?? 0, now);
    if (found === undefined) undetermined.push(condition.id);
    else holding.push(...found);
  }
  return { holding, undetermined };
}

function evaluate(condition: AlertCondition, o: IncidentObservation, threshold: number, now: Date): Finding[] | undefined {
  const finding = (cause: string, detail: string): Finding => ({ condition: condition.id, causeKind: condition.cause, cause, detail });
  const since = now.getTime() - condition.windowMs;
  switch (condition.id) {
    case 'deadLettersRising':
      return o.depths && rises(o.depths, since, () => true, (p) => p.deadLetter, threshold).map((r) => finding(r.queue, `${r.latest} dead-lettered, ${r.rise} more than ${windowText(condition)} ago at the lowest`));
    case 'parkedGrowing':
      return o.depths && rises(o.depths, since, (p) => p.role === 'transitive', (p) => p.active, threshold).map((r) => finding(r.queue, `${r.latest} parked, ${r.rise} more than ${windowText(condition)} ago at the lowest`));
    case 'jobFailing':
      return o.runs && failingJobs(o.runs, since, threshold).map((j) => finding(j.job, `${j.failed} runs in a row failed, the last at ${j.lastAt.toISOString()}${j.error ? `: ${j.error}` : ''}`));
    case 'targetOutage':
      return o.outages?.map((t) => finding(t.connection, `in outage since ${t.since.toISOString()} after ${t.failures} failed ${t.failures === 1 ? 'group' : 'groups'}: ${t.error}`));
    case 'lagBeyond':
      return (
        o.overdueSeconds &&
        Object.entries(o.overdueSeconds)
          .filter(([, overdue]) => overdue > threshold)
          .map(([job, overdue]) => finding(job, `no complete read for ${formatSeconds(overdue)} after a run was due, more than ${formatSeconds(threshold)}`))
      );
  }
}

const windowText = (c: AlertCondition) => (c.windowMs % 3_600_000 === 0 ? `${c.windowMs / 3_600_000} h` : `${c.windowMs / 60_000} min`);

/** Per queue of the role: the newest value against the lowest of the window, where it rose by at least `threshold` (as the queries' `Latest - Lowest`). */
function rises(depths: readonly DepthPoint[], since: number, role: (p: DepthPoint) => boolean, value: (p: DepthPoint) => number, threshold: number) {
  const byQueue = new Map<string, { lowest: number; latest: DepthPoint }>();
  for (const p of depths) {
    if (!role(p) || p.at.getTime() < since) continue;
    const seen = byQueue.get(p.queue);
    if (!seen) byQueue.set(p.queue, { lowest: value(p), latest: p });
    else {
      seen.lowest = Math.min(seen.lowest, value(p));
      if (p.at.getTime() >= seen.latest.at.getTime()) seen.latest = p;
    }
  }
  return [...byQueue]
    .map(([queue, s]) => ({ queue, latest: value(s.latest), rise: value(s.latest) - s.lowest }))
    .filter((r) => r.rise >= threshold)
    .sort((a, b) => (a.queue < b.queue ? -1 : 1));
}

/** Jobs whose newest runs in the window failed, at least `threshold` in a row (as the query's failures since the last success). */
function failingJobs(runs: ReadonlyMap<string, readonly RunPoint[]>, since: number, threshold: number) {
  return [...runs].flatMap(([job, newestFirst]) => {
    const recent = newestFirst.filter((r) => r.startedAt.getTime() >= since);
    const firstSuccess = recent.findIndex((r) => r.outcome === 'Succeeded');
    const failed = firstSuccess < 0 ? recent.length : firstSuccess;
    return failed >= threshold ? [{ job, failed, lastAt: recent[0].startedAt, error: recent[0].error }] : [];
  });
}
