import type { ApplyResult, Outcome } from './apply';
import { reportText } from './message-facts';
import { normalizeErrorMessage, NO_ERROR_MESSAGE } from './normalize-error';
import type { Decision, PlannedMessage } from './plan';
import type { MoverAction } from '../config/requeue-rules';
import type { Snapshot } from './snapshot';

/** The report of a run, printed as text or (with `--json`) as this object. */
export interface MoverReport {
  mode: 'dry-run' | 'apply';
  /** `queue` or `queue/$deadletterqueue`. */
  source: string;
  /** Where the bus is (never a secret). */
  bus: string;
  rules: { file: string; count: number };
  snapshot: { messages: number; inScope: number; firstSequence?: string; lastSequence?: string; truncatedAtMax: boolean };
  groups: ReportGroup[];
  /** What `--apply` does (dry run) or set out to do (apply). */
  planned: {
    resubmit: number;
    skip: number;
    none: number;
    byTarget: Record<string, number>;
    /** Left in place: a newer change of their record was applied (decision `newerApplied`). Absent: none. */
    superseded?: number;
    /** Resubmitted over a newer applied change (`--include-superseded`, decision `forced`). Absent: none. */
    forced?: number;
  };
  /** Messages whose Resubmit cannot be carried out (no work queue known). */
  problems: MessageIssue[];
  /** Only with `--apply`. */
  results?: { resubmitted: number; skipped: number; failed: number; released: number; interrupted: boolean; failures: MessageIssue[]; releaseErrors: string[] };
  /** Only with `--list`: every message in scope. */
  messages?: ListedMessage[];
}

export interface ReportGroup {
  action: MoverAction;
  decision: Decision;
  /** Rule name and position, when a rule matched. */
  rule?: string;
  ruleIndex?: number;
  target?: string;
  deadLetterReason?: string;
  /** Normalised error message (see normalize-error.ts). */
  errorMessage: string;
  count: number;
  /** Enqueued time of the oldest and newest message (ISO 8601). */
  oldest: string;
  newest: string;
  sampleMessageIds: string[];
}

interface MessageIssue {
  messageId: string;
  sequenceNumber: string;
  error: string;
}

export interface ListedMessage {
  sequenceNumber: string;
  messageId: string;
  enqueuedTime: string;
  jobName?: string;
  sourceKey?: string;
  changeTracker?: string;
  deadLetterReason?: string;
  errorMessage?: string;
  action: MoverAction;
  decision: Decision;
  rule?: string;
  target?: string;
  supersededBy?: string;
  /** For `newerApplied` and `forced`: the newer change applied to the record. */
  newerApplied?: string;
  outcome?: Outcome;
}

export interface ReportInput {
  mode: MoverReport['mode'];
  source: string;
  bus: string;
  rules: { file: string; count: number };
  snapshot: Snapshot;
  plan: readonly PlannedMessage[];
  applied?: ApplyResult;
  list?: boolean;
  /** The group label of messages that carry no error (the ignored queue's: `OUTDATED_REASON`). Default {@link NO_ERROR_MESSAGE}. */
  noErrorText?: string;
}

const SAMPLES = 3;
const ACTION_ORDER: Record<MoverAction, number> = { Resubmit: 0, Skip: 1, None: 2 };

function groupKey(p: PlannedMessage, noErrorText: string): string {
  return JSON.stringify([p.action, p.decision, p.rule?.index ?? -1, p.target ?? '', p.facts.deadLetterReason ?? '', normalizeErrorMessage(reportText(p.facts), noErrorText)]);
}

function groupsOf(plan: readonly PlannedMessage[], noErrorText = NO_ERROR_MESSAGE): ReportGroup[] {
  const groups = new Map<string, ReportGroup>();
  for (const p of plan) {
    const key = groupKey(p, noErrorText);
    const at = p.message.enqueuedTime.toISOString();
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, {
        action: p.action,
        decision: p.decision,
        ...(p.rule ? { rule: p.rule.name, ruleIndex: p.rule.index } : {}),
        ...(p.target ? { target: p.target } : {}),
        ...(p.facts.deadLetterReason ? { deadLetterReason: p.facts.deadLetterReason } : {}),
        errorMessage: normalizeErrorMessage(reportText(p.facts), noErrorText),
        count: 1,
        oldest: at,
        newest: at,
        sampleMessageIds: [p.message.messageId],
      });
      continue;
    }
    group.count++;
    if (at < group.oldest) group.oldest = at;
    if (at > group.newest) group.newest = at;
    if (group.sampleMessageIds.length < SAMPLES) group.sampleMessageIds.push(p.message.messageId);
  }
  return [...groups.values()].sort(
    (a, b) => ACTION_ORDER[a.action] - ACTION_ORDER[b.action] || (a.ruleIndex ?? Infinity) - (b.ruleIndex ?? Infinity) || a.decision.localeCompare(b.decision) || b.count - a.count,
  );
}

function listed(p: PlannedMessage, outcome: Outcome | undefined): ListedMessage {
  const out: ListedMessage = {
    sequenceNumber: p.message.sequenceNumber,
    messageId: p.message.messageId,
    enqueuedTime: p.message.enqueuedTime.toISOString(),
    jobName: p.facts.jobName,
    sourceKey: p.facts.sourceKey,
    changeTracker: p.facts.changeTracker,
    deadLetterReason: p.facts.deadLetterReason,
    errorMessage: reportText(p.facts),
    action: p.action,
    decision: p.decision,
    rule: p.rule?.name,
    target: p.target,
    supersededBy: p.supersededBy,
    newerApplied: p.newerApplied,
    outcome,
  };
  return JSON.parse(JSON.stringify(out)) as ListedMessage; // drops the undefined fields
}

export function buildReport(input: ReportInput): MoverReport {
  const { plan, snapshot, applied } = input;
  const count = (action: MoverAction) => plan.filter((p) => p.action === action).length;
  const byTarget: Record<string, number> = {};
  for (const p of plan) if (p.target) byTarget[p.target] = (byTarget[p.target] ?? 0) + 1;
  const report: MoverReport = {
    mode: input.mode,
    source: input.source,
    bus: input.bus,
    rules: input.rules,
    snapshot: {
      messages: snapshot.peeked.length,
      inScope: snapshot.inScope.length,
      firstSequence: snapshot.peeked[0]?.sequenceNumber,
      lastSequence: snapshot.lastSequence?.toString(),
      truncatedAtMax: snapshot.truncated,
    },
    groups: groupsOf(plan, input.noErrorText),
    planned: {
      resubmit: count('Resubmit'),
      skip: count('Skip'),
      none: count('None'),
      byTarget,
      ...countOf(plan, 'newerApplied', 'superseded'),
      ...countOf(plan, 'forced', 'forced'),
    },
    problems: plan.filter((p) => p.problem).map((p) => ({ messageId: p.message.messageId, sequenceNumber: p.message.sequenceNumber, error: p.problem as string })),
  };
  if (applied) {
    const outcomes = [...applied.outcomes.entries()];
    const ids = new Map(plan.map((p) => [p.message.sequenceNumber, p.message.messageId]));
    report.results = {
      resubmitted: outcomes.filter(([, o]) => o.status === 'resubmitted').length,
      skipped: outcomes.filter(([, o]) => o.status === 'skipped').length,
      failed: outcomes.filter(([, o]) => o.status === 'failed').length,
      released: applied.released,
      interrupted: applied.interrupted,
      failures: outcomes.flatMap(([seq, o]) => (o.status === 'failed' ? [{ messageId: ids.get(seq) ?? '', sequenceNumber: seq, error: o.error }] : [])),
      releaseErrors: applied.releaseErrors,
    };
  }
  if (input.list) report.messages = plan.map((p) => listed(p, applied?.outcomes.get(p.message.sequenceNumber)));
  return report;
}

/** `{ [name]: n }` for the n > 0 messages of a decision, else nothing (the report's JSON stays as before). */
function countOf<K extends string>(plan: readonly PlannedMessage[], decision: Decision, name: K): Partial<Record<K, number>> {
  const n = plan.filter((p) => p.decision === decision).length;
  return n > 0 ? ({ [name]: n } as Record<K, number>) : {};
}

/** 0 when everything planned was done (or, in a dry run, can be done); 1 otherwise. */
export function exitCodeOf(report: MoverReport): number {
  if (report.problems.length > 0) return 1;
  if (report.results && (report.results.failed > 0 || report.results.interrupted)) return 1;
  return 0;
}
