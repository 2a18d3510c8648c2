/**
 * The queues Highwater uses and what each is for: one work queue and one transitive (parked)
 * queue per priority, and one queue for outdated (ignored) messages. Every part that asks "which
 * queue is this" (gauges, the status page, the dead-letter mover, the triggers) asks here.
 */

/** A job's priority: which work queue its messages go through. */
export type Priority = 'high' | 'normal' | 'low';
/** Every priority, highest first. */
export const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];

export interface QueueNames {
  work: Record<Priority, string>;
  transitive: Record<Priority, string>;
  ignored: string;
}

/** The spec's queue names, used when no `QUEUE_*` setting renames them. */
export const DEFAULT_QUEUES: QueueNames = {
  work: { high: 'sbqhigh', normal: 'sbqnormal', low: 'sbqlow' },
  transitive: { high: 'sbqtransitivehigh', normal: 'sbqtransitivenormal', low: 'sbqtransitivelow' },
  ignored: 'sbqignored',
};

/** What a queue is for: `work` (has a processor), `transitive` (parked), `ignored` (outdated). */
export type QueueRole = 'work' | 'transitive' | 'ignored';

/** Where a queue name sits in the topology; `other` for a queue Highwater does not use. */
export type QueuePlace = { role: 'work' | 'transitive'; priority: Priority } | { role: 'ignored' } | { role: 'other' };

/** The place of one queue name. */
export function placeOfQueue(queues: QueueNames, queue: string): QueuePlace {
  for (const priority of PRIORITIES) {
    if (queues.work[priority] === queue) return { role: 'work', priority };
    if (queues.transitive[priority] === queue) return { role: 'transitive', priority };
  }
  return queue === queues.ignored ? { role: 'ignored' } : { role: 'other' };
}

/** Every queue name in use, work queues first. */
export function allQueueNames(queues: QueueNames): string[] {
  return [...Object.values(queues.work), ...Object.values(queues.transitive), queues.ignored];
}

/** Every queue in use with its role, work queues first. */
export function queueRoles(queues: QueueNames): Array<{ queue: string; role: QueueRole }> {
  return allQueueNames(queues).map((queue) => ({ queue, role: placeOfQueue(queues, queue).role as QueueRole }));
}
