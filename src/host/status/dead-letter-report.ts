import type { BusMessage, MessageBus } from '../../bus/message-bus';
import { errorText, messageFacts } from '../../mover/message-facts';
import { normalizeErrorMessage, OUTDATED_REASON } from '../../mover/normalize-error';
import { errorMessage } from '../../platform/errors';
import { type QueueNames, queueRoles, type QueueRole } from '../../platform/queue-topology';

const NO_ERROR = '(no error recorded)';

/** One place messages wait for a person: a dead-letter subqueue, or a transitive/ignored queue. */
export interface ParkedSource {
  queue: string;
  role: QueueRole;
  /** `deadLetter` for the dead-letter subqueue; absent for the queue itself. */
  subQueue?: 'deadLetter';
  /** Messages there (from the bus's counts). */
  count: number;
  /** Messages looked at (at most the peek limit). */
  peeked: number;
  /** Peeked messages grouped by their recorded error (normalised as the mover groups them), most frequent first. */
  groups: ParkedGroup[];
  /** Link to the dead-letter mover's dry-run report of this source, when the host offers one. */
  reportUrl?: string;
  problem?: string;
}

export interface ParkedGroup {
  reason: string;
  count: number;
  jobs: string[];
  /** Up to 5 message ids, to find them with the mover. */
  sampleMessageIds: string[];
  /** The source keys of the same messages (`SourceKey`): what a person looks the record up by. */
  sampleSourceKeys: string[];
}

export interface DeadLetterReportOptions {
  /** Messages peeked per source. Default 200. */
  peekLimit?: number;
  /** URL of the mover's dry-run report for a source; none → the page shows the CLI command. */
  reportUrl?: (queue: string, subQueue: 'deadLetter' | undefined) => string | undefined;
}

/**
 * What waits in dead-letter subqueues and in the transitive and ignored queues, grouped by the
 * recorded error (`ErrorMessage`, else the dead-letter description or reason). Browses with peek:
 * nothing is locked, received or moved.
 */
export async function buildDeadLetterReport(
  bus: Pick<MessageBus, 'counts' | 'peek'>,
  queues: QueueNames,
  options: DeadLetterReportOptions = {},
): Promise<ParkedSource[]> {
  const limit = options.peekLimit ?? 200;
  const sources: ParkedSource[] = [];
  for (const { queue, role } of queueRoles(queues)) {
    let counts;
    try {
      counts = await bus.counts(queue);
    } catch (err) {
      sources.push({ queue, role, count: 0, peeked: 0, groups: [], problem: errorMessage(err) });
      continue;
    }
    const wanted: Array<{ subQueue?: 'deadLetter'; count: number }> = [{ subQueue: 'deadLetter', count: counts.deadLetter }];
    if (role !== 'work') wanted.unshift({ count: counts.active });
    for (const { subQueue, count } of wanted) {
      if (count === 0) continue;
      const reportUrl = options.reportUrl?.(queue, subQueue);
      const base = { queue, role, ...(subQueue ? { subQueue } : {}), count, ...(reportUrl ? { reportUrl } : {}) };
      try {
        const messages = await bus.peek(queue, { maxMessages: limit, ...(subQueue ? { subQueue } : {}) });
        sources.push({ ...base, peeked: messages.length, groups: groupByReason(messages, subQueue ? NO_ERROR : role === 'ignored' ? OUTDATED_REASON : NO_ERROR) });
      } catch (err) {
        sources.push({ ...base, peeked: 0, groups: [], problem: errorMessage(err) });
      }
    }
  }
  return sources;
}

/**
 * Groups parked messages by error as the mover's report does: the mover's facts of each message
 * and its normalised error text (`timeout after 30000 ms` and `timeout after 15000 ms` are one
 * group). Unlike the report, which shows the dead-letter reason beside the error, a message with
 * neither error nor description is grouped by its dead-letter reason; with none, by `fallback`
 * (messages of the ignored queue carry no error: they are grouped by their `IgnoredReason`, and
 * those ignored before it existed by `fallback`).
 */
export function groupByReason(messages: readonly BusMessage[], fallback = NO_ERROR): ParkedGroup[] {
  const groups = new Map<string, { count: number; jobs: Set<string>; sampleMessageIds: string[]; sampleSourceKeys: string[] }>();
  for (const m of messages) {
    const facts = messageFacts(m);
    // An ignored message says why (IgnoredReason: outdated, or superseded by a newer applied change).
    const reason = normalizeErrorMessage(errorText(facts) ?? facts.deadLetterReason ?? facts.ignoredReason, fallback);
    const group = groups.get(reason) ?? { count: 0, jobs: new Set<string>(), sampleMessageIds: [], sampleSourceKeys: [] };
    group.count++;
    if (facts.jobName !== undefined) group.jobs.add(facts.jobName);
    if (group.sampleMessageIds.length < 5) {
      group.sampleMessageIds.push(m.messageId);
      group.sampleSourceKeys.push(facts.sourceKey ?? '(no source key)');
    }
    groups.set(reason, group);
  }
  return [...groups.entries()]
    .map(([reason, g]) => ({ reason, count: g.count, jobs: [...g.jobs].sort(), sampleMessageIds: g.sampleMessageIds, sampleSourceKeys: g.sampleSourceKeys }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}
