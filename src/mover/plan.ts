import type { BusMessage } from '../bus/message-bus';
import { compareChangeTrackers } from './change-tracker-order';
import { messageFacts, ruleSubject, type MessageFacts } from './message-facts';
import { requeueCountOf } from './resubmission';
import type { TargetResolver } from './resubmit-target';
import type { MoverAction, Rule } from '../config/requeue-rules';
import { firstMatch } from './rules';

/**
 * The plan: what the mover does with each message of the snapshot, decided before anything is
 * received, so that de-duplication sees every message of a record and a dry run shows exactly
 * what `--apply` does.
 */

/** Why a message gets its action. */
export type Decision =
  /** A rule matched. */
  | 'rule'
  /** No rule matched: left in place. */
  | 'noRule'
  /** A rule said Resubmit, but a newer change of the same record is resubmitted instead: removed. */
  | 'superseded'
  /** A rule said Resubmit, but its work queue cannot be determined: left in place (a failure). */
  | 'noTarget'
  /** A rule said Resubmit, but the scheduled requeue already sent it back `maxRequeues` times: left for a person. */
  | 'capped'
  /** A rule said Resubmit, but a newer change of its record was applied since (the processor would ignore it): left in place. */
  | 'newerApplied'
  /** As `newerApplied`, but resubmitted anyway (`--include-superseded`): it overwrites the newer change. */
  | 'forced';

export interface PlannedMessage {
  message: BusMessage;
  facts: MessageFacts;
  /** The rule that matched (also for `superseded` and `noTarget`). */
  rule?: Rule;
  action: MoverAction;
  decision: Decision;
  /** The work queue of a Resubmit. */
  target?: string;
  /** For `superseded`: the message resubmitted instead. */
  supersededBy?: string;
  /** For `noTarget`: why. */
  problem?: string;
  /** For `newerApplied` and `forced`: which newer change was applied (see `staleReason`). */
  newerApplied?: string;
}

export interface PlanOptions {
  rules: readonly Rule[];
  now: Date;
  targets: TargetResolver;
  /** The watermark type of a job (from `--config`), to order its change trackers. */
  watermarkTypeOf?: (jobName: string) => string | undefined;
  /**
   * The scheduled requeue's cap: a Resubmit of a message whose `RequeueCount` is already this
   * high becomes None (`capped`). Applied after de-duplication, so an older change of the same
   * record is still removed as superseded. Default: no cap (the command line).
   */
  maxRequeues?: number;
}

/** The rule and action for one message, without de-duplication. */
export function decide(rules: readonly Rule[], message: BusMessage, facts: MessageFacts, now: Date): { rule?: Rule; action: MoverAction } {
  const rule = firstMatch(rules, ruleSubject(message, facts, now));
  return { rule, action: rule?.action ?? 'None' };
}

/** Whether `a` is a later change than `b` of the same record (ties: the later sequence number). */
function isNewer(a: PlannedMessage, b: PlannedMessage, watermarkType: string | undefined): boolean {
  const order = compareChangeTrackers(a.facts.changeTracker, b.facts.changeTracker, watermarkType);
  if (order !== 0) return order > 0;
  return BigInt(a.message.sequenceNumber) > BigInt(b.message.sequenceNumber);
}

/**
 * Of several Resubmits for one record (same `JobName` and `SourceKey`), keeps the newest
 * `ChangeTracker`; the others become Skip (superseded). Messages without a SourceKey are kept.
 */
function deduplicate(planned: PlannedMessage[], watermarkTypeOf: PlanOptions['watermarkTypeOf']): void {
  const newest = new Map<string, PlannedMessage>();
  for (const entry of planned) {
    if (entry.action !== 'Resubmit' || entry.facts.sourceKey === undefined) continue;
    const key = JSON.stringify([entry.facts.jobName ?? null, entry.facts.sourceKey]);
    const kept = newest.get(key);
    const type = entry.facts.jobName === undefined ? undefined : watermarkTypeOf?.(entry.facts.jobName);
    if (kept === undefined || isNewer(entry, kept, type)) newest.set(key, entry);
  }
  for (const entry of planned) {
    if (entry.action !== 'Resubmit' || entry.facts.sourceKey === undefined) continue;
    const kept = newest.get(JSON.stringify([entry.facts.jobName ?? null, entry.facts.sourceKey]));
    if (kept !== undefined && kept !== entry) {
      entry.action = 'Skip';
      entry.decision = 'superseded';
      entry.supersededBy = kept.message.messageId;
    }
  }
}

export function planMessages(messages: readonly BusMessage[], options: PlanOptions): PlannedMessage[] {
  const planned = messages.map((message): PlannedMessage => {
    const facts = messageFacts(message);
    const { rule, action } = decide(options.rules, message, facts, options.now);
    return { message, facts, rule, action, decision: rule === undefined ? 'noRule' : 'rule' };
  });
  deduplicate(planned, options.watermarkTypeOf);
  for (const entry of planned) {
    if (entry.action !== 'Resubmit') continue;
    if (options.maxRequeues !== undefined && requeueCountOf(entry.message.applicationProperties) >= options.maxRequeues) {
      entry.action = 'None';
      entry.decision = 'capped';
      continue;
    }
    const target = options.targets.resolve(entry.facts.jobName);
    if ('queue' in target) {
      entry.target = target.queue;
    } else {
      entry.action = 'None';
      entry.decision = 'noTarget';
      entry.problem = target.problem;
    }
  }
  return planned;
}

/**
 * Marks the Resubmits whose record has a newer applied change (`newer`, by sequence number, with
 * the reason): left in place (`newerApplied`), or with `include` resubmitted anyway (`forced`).
 */
export function markNewerApplied(plan: readonly PlannedMessage[], newer: ReadonlyMap<string, string>, include: boolean): void {
  for (const entry of plan) {
    const reason = entry.action === 'Resubmit' ? newer.get(entry.message.sequenceNumber) : undefined;
    if (reason === undefined) continue;
    entry.newerApplied = reason;
    if (include) {
      entry.decision = 'forced';
    } else {
      entry.action = 'None';
      entry.decision = 'newerApplied';
      delete entry.target;
    }
  }
}
