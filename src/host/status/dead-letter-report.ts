import type { BusMessage, MessageBus } from '../../bus/message-bus';
import { ERROR_PROPERTY, MESSAGE_PROPERTY } from '../../bus/message-properties';
import { errorMessage } from '../../platform/errors';
import { OUTDATED_REASON } from '../../../tools/dead-letter-mover/normalize-error';
import { type QueueNames, queueRoles, type QueueRole } from '../../platform/queue-topology';

const NO_ERROR = '(no error recorded)';
/** Messages in the ignored queue carry no error: the processor skipped them as outdated (the mover says the same). */
const OUTDATED = OUTDATED_REASON;

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
  /** Peeked messages grouped by their recorded error, most frequent first. */
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
        sources.push({ ...base, peeked: messages.length, groups: groupByReason(messages, subQueue ? NO_ERROR : role === 'ignored' ? OUTDATED : NO_ERROR) });
      } catch (err) {
        sources.push({ ...base, peeked: 0, groups: [], problem: errorMessage(err) });
      }
    }
  }
  return sources;
}

/** The error a parked message carries (as the mover's rules match it), else `fallback`. */
export function parkedReason(message: Pick<BusMessage, 'applicationProperties' | 'deadLetterErrorDescription' | 'deadLetterReason'>, fallback = NO_ERROR): string {
  const recorded = message.applicationProperties[ERROR_PROPERTY.message];
  if (typeof recorded === 'string' && recorded !== '') return recorded;
  return message.deadLetterErrorDescription || message.deadLetterReason || fallback;
}

export function groupByReason(messages: readonly BusMessage[], fallback = NO_ERROR): ParkedGroup[] {
  const groups = new Map<string, { count: number; jobs: Set<string>; sampleMessageIds: string[]; sampleSourceKeys: string[] }>();
  for (const m of messages) {
    const reason = parkedReason(m, fallback);
    const group = groups.get(reason) ?? { count: 0, jobs: new Set<string>(), sampleMessageIds: [], sampleSourceKeys: [] };
    group.count++;
    const job = m.applicationProperties[MESSAGE_PROPERTY.jobName] ?? m.subject;
    if (typeof job === 'string') group.jobs.add(job);
    if (group.sampleMessageIds.length < 5) {
      group.sampleMessageIds.push(m.messageId);
      const key = m.applicationProperties[MESSAGE_PROPERTY.sourceKey];
      group.sampleSourceKeys.push(key === undefined || key === null || key === '' ? '(no source key)' : String(key));
    }
    groups.set(reason, group);
  }
  return [...groups.entries()]
    .map(([reason, g]) => ({ reason, count: g.count, jobs: [...g.jobs].sort(), sampleMessageIds: g.sampleMessageIds, sampleSourceKeys: g.sampleSourceKeys }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}
