import type { QueueMessage } from '../../model/queue-message';
import type { ReceivedItem } from '../received-item';
import type { Work } from './triage';

/** What processing decided for one received message, before it is settled. */
export type Verdict =
  /** Applied to its target; `response` goes to the response job's queue first. */
  | { readonly kind: 'applied'; readonly work: Work; readonly response?: QueueMessage }
  /** A newer change of the same record in the same batch was applied instead. */
  | { readonly kind: 'superseded'; readonly work: Work }
  /** Outdated: the target (or a recorded delete) is newer → `sbqignored`. */
  | { readonly kind: 'ignored'; readonly work: Work; readonly reason: string }
  /**
   * Not applied: its target connection is in outage, or recovers from one and this record missed
   * its parent (`cause`, while messages deferred in the outage are still to come); rescheduled for
   * `until`, no attempt counted.
   */
  | { readonly kind: 'deferred'; readonly work: Work; readonly until: Date; readonly connection: string; readonly cause?: unknown }
  /** Failed; the error's kind and the attempt decide where it goes. */
  | {
      readonly kind: 'failed';
      readonly index: number;
      readonly item: ReceivedItem;
      readonly error: unknown;
      readonly work?: Work;
      readonly message?: QueueMessage;
      /** The whole group failed (not this item alone): logged once per group. */
      readonly group?: boolean;
    };

export function failed(work: Work, error: unknown, group = false): Verdict {
  return { kind: 'failed', index: work.index, item: work.item, error, work, message: work.message, group };
}

export function indexOf(verdict: Verdict): number {
  return verdict.kind === 'failed' ? verdict.index : verdict.work.index;
}
