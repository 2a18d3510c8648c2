import type { BusMessage, MessageBus } from '../bus/message-bus';
import { ERROR_PROPERTY, MESSAGE_PROPERTY, safeErrorText } from '../bus/message-properties';
import { PRIORITIES, type QueueNames } from '../platform/queue-topology';
import type { TargetHealthView } from '../process/target-health';

/** The messages that wait in the work queues for one target connection, and why. */
interface WaitingGroup {
  /** The target connection; undefined for messages of jobs the configuration does not have. */
  readonly target?: string;
  readonly jobs: readonly string[];
  readonly messages: number;
  readonly why: string;
}

export interface WaitingReport {
  /** Every message active or scheduled in the work queues (the broker's count). */
  readonly total: number;
  readonly groups: readonly WaitingGroup[];
  /** Set when the queues held more than were looked at: `groups` count the first `looked` only. */
  readonly looked?: number;
}

export interface WaitingReportOptions {
  bus: Pick<MessageBus, 'peek' | 'counts'>;
  queues: QueueNames;
  /** The target connection of a job; undefined for a job the configuration does not have. */
  targetOf: (jobName: string) => string | undefined;
  /** The outage mode that processed (its outages say why a target's messages wait). */
  health: TargetHealthView;
  /** Messages looked at, over all work queues. Default 20,000 (a `--once` run ends; a bigger backlog is counted, not broken down). */
  maxMessages?: number;
}

const PAGE = 250;

/**
 * What waits in the work queues when `start --once` gives up: per target connection, how many
 * messages and why — the outage that holds them (with the error that opened it), else the last
 * error a message carries (a retry copy), else that none of them was tried yet.
 */
export async function waitingReport(options: WaitingReportOptions): Promise<WaitingReport> {
  const max = options.maxMessages ?? 20_000;
  let total = 0;
  for (const p of PRIORITIES) {
    const counts = await options.bus.counts(options.queues.work[p]);
    total += counts.active + counts.scheduled;
  }
  const byTarget = new Map<string, { jobs: Set<string>; messages: number; lastError?: string }>();
  let looked = 0;
  for (const p of PRIORITIES) {
    for (let from: string | undefined; looked < max; ) {
      const page: BusMessage[] = await options.bus.peek(options.queues.work[p], { maxMessages: Math.min(PAGE, max - looked), ...(from ? { fromSequenceNumber: from } : {}) });
      for (const m of page) {
        const job = String(m.applicationProperties[MESSAGE_PROPERTY.jobName] ?? m.subject ?? 'unknown');
        const target = options.targetOf(job) ?? '';
        const entry = byTarget.get(target) ?? { jobs: new Set<string>(), messages: 0 };
        entry.jobs.add(job);
        entry.messages++;
        const error = m.applicationProperties[ERROR_PROPERTY.message];
        if (typeof error === 'string' && error !== '') entry.lastError = error;
        byTarget.set(target, entry);
      }
      looked += page.length;
      if (page.length < PAGE) break;
      from = String(BigInt(page[page.length - 1].sequenceNumber) + 1n);
    }
  }
  const outages = new Map(options.health.snapshot().map((o) => [o.connection, o]));
  const groups = [...byTarget].map(([target, e]): WaitingGroup => {
    const outage = target === '' ? undefined : outages.get(target);
    const why = outage
      ? `target in outage since ${outage.since.toISOString()}: ${outage.error}`
      : e.lastError
        ? `retried after: ${safeErrorText(e.lastError)}`
        : 'not tried yet';
    return { ...(target === '' ? {} : { target }), jobs: [...e.jobs].sort(), messages: e.messages, why };
  });
  groups.sort((a, b) => b.messages - a.messages || (a.target ?? '').localeCompare(b.target ?? ''));
  return looked < total ? { total, groups, looked } : { total, groups };
}

/** The summary's lines for a report: one per target, most messages first. */
export function formatWaiting(report: WaitingReport): string[] {
  const lines = [`Waiting in the work queues: ${report.total} message(s)${report.looked !== undefined ? ` (the first ${report.looked} broken down)` : ''}`];
  for (const g of report.groups) {
    const jobs = g.jobs.map((j) => `"${j}"`).join(', ');
    lines.push(g.target === undefined ? `  ${g.messages} of unknown job ${jobs}: ${g.why}` : `  ${g.messages} for target "${g.target}" (job ${g.jobs.join(', ')}): ${g.why}`);
  }
  return lines;
}
