import { alertCondition, type AlertConditionId, type CauseKind } from '../../telemetry/alert-conditions';
import type { Finding, Findings } from './incident-findings';

/**
 * The lifecycle of incidents, as Azure Monitor's stateful alerts have it: a condition that begins
 * to hold for a cause opens one incident; while it holds, that incident stays open (its detail
 * follows what is found); when it no longer holds, the incident closes by itself. The next time
 * it holds, a new incident opens. A closed incident stays listed for a while. Pure: time is passed in.
 */

export interface Incident {
  /** Stable for the incident's life: condition, cause and when it opened. */
  readonly id: string;
  readonly condition: AlertConditionId;
  readonly title: string;
  readonly causeKind: CauseKind;
  readonly cause: string;
  /** What was found at the last evaluation that saw the condition hold. */
  readonly detail: string;
  readonly openedAt: Date;
  /** Null while open. */
  readonly closedAt: Date | null;
}

/** How long a closed incident stays listed, ms. */
export const KEEP_CLOSED_MS = 24 * 60 * 60_000;

export interface IncidentChanges {
  /** Every incident listed now: open ones first (newest first), then closed ones (last closed first). */
  incidents: Incident[];
  opened: Incident[];
  closed: Incident[];
}

const keyOf = (f: Pick<Finding, 'condition' | 'causeKind' | 'cause'>) => `${f.condition}\u0000${f.causeKind}\u0000${f.cause}`;

/**
 * The incidents after one evaluation: opens one per finding without an open incident of its
 * cause, closes the open ones whose condition no longer holds (not those of a condition that
 * could not be evaluated), and drops closed ones older than `keepClosedMs`.
 */
export function advanceIncidents(previous: readonly Incident[], findings: Findings, now: Date, keepClosedMs = KEEP_CLOSED_MS): IncidentChanges {
  const holding = new Map(findings.holding.map((f) => [keyOf(f), f]));
  const unknown = new Set(findings.undetermined);
  const opened: Incident[] = [];
  const closed: Incident[] = [];
  const next: Incident[] = [];
  const open = new Set<string>();
  for (const incident of previous) {
    if (incident.closedAt !== null) {
      if (now.getTime() - incident.closedAt.getTime() <= keepClosedMs) next.push(incident);
      continue;
    }
    const key = keyOf(incident);
    const finding = holding.get(key);
    if (finding) {
      next.push({ ...incident, detail: finding.detail });
      open.add(key);
    } else if (unknown.has(incident.condition)) {
      next.push(incident);
      open.add(key);
    } else {
      const done = { ...incident, closedAt: now };
      closed.push(done);
      next.push(done);
    }
  }
  for (const [key, f] of holding) {
    if (open.has(key)) continue;
    const incident: Incident = {
      id: `${f.condition}:${f.causeKind}:${f.cause}:${now.toISOString()}`,
      condition: f.condition,
      title: alertCondition(f.condition).title,
      causeKind: f.causeKind,
      cause: f.cause,
      detail: f.detail,
      openedAt: now,
      closedAt: null,
    };
    opened.push(incident);
    next.push(incident);
  }
  return { incidents: ordered(next), opened, closed };
}

function ordered(incidents: Incident[]): Incident[] {
  const time = (i: Incident) => (i.closedAt ?? i.openedAt).getTime();
  return incidents.sort((a, b) => Number(a.closedAt !== null) - Number(b.closedAt !== null) || time(b) - time(a) || (a.id < b.id ? -1 : 1));
}
