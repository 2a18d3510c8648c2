import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import { isBusError, type MessageBus, type ReceivedMessage } from '../bus/message-bus';
import { messageFacts } from './message-facts';
import { decide, type PlannedMessage } from './plan';
import { HeldMessages } from './held-messages';
import { resubmission, type SourceLocation } from './resubmission';
import type { Rule } from '../config/requeue-rules';
import type { Snapshot } from './snapshot';

/**
 * Carries out a plan. Each message is received with a lock; a resubmission is sent before the
 * original is completed, so an interruption at any point leaves the original in place (its lock
 * expires) and at worst sends a copy twice, with the same message id, which duplicate detection
 * drops. Messages the plan leaves alone are held (locked) until the end, so that receiving moves
 * on to later ones, then released. Receiving stops at the end of the snapshot.
 */

export type Outcome = { status: 'resubmitted'; target: string } | { status: 'skipped' } | { status: 'failed'; error: string };

export interface ApplyResult {
  /** By sequence number, for every message the plan resubmits or skips. */
  outcomes: Map<string, Outcome>;
  /** Messages received, held and released again (left untouched). */
  released: number;
  /** Release failures (the lock then simply expires). */
  releaseErrors: string[];
  /** Stopped early by the signal (Ctrl-C). */
  interrupted: boolean;
}

export interface ApplyOptions {
  bus: MessageBus;
  source: SourceLocation;
  plan: readonly PlannedMessage[];
  snapshot: Snapshot;
  rules: readonly Rule[];
  clock: Pick<Clock, 'now'>;
  /** Stops between batches; held messages are still released. */
  signal?: AbortSignal;
  /** Called after each batch with messages settled so far and the number to settle. */
  progress?: (settled: number, total: number) => void;
  /** Most messages per receive. Default 100. */
  batchSize?: number;
  /** Raise each resubmission's `RequeueCount` (the scheduled requeue). Default false. */
  countRequeues?: boolean;
}

interface Pairing {
  received: ReceivedMessage;
  planned: PlannedMessage;
}

const NOT_RECEIVED = 'not received: locked by another receiver, removed or expired since the snapshot; nothing was done';
const INTERRUPTED = 'not done: the run was interrupted first; nothing was done';

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { bus, source, snapshot, clock } = options;
  const batchSize = options.batchSize ?? 100;
  const pending = new Map(options.plan.filter((p) => p.action !== 'None').map((p) => [p.message.sequenceNumber, p]));
  const total = pending.size;
  const outcomes = new Map<string, Outcome>();
  const held = new HeldMessages(bus, clock);
  // Both ascending (the snapshot is in sequence order); with binary search each batch costs log n.
  const peekedSequences = snapshot.peeked.map((m) => BigInt(m.sequenceNumber));
  const pendingSequences = [...pending.keys()].map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const end = snapshot.lastSequence ?? -1n;
  let lastSeen = -1n;
  const finish = (seq: string, outcome: Outcome) => {
    outcomes.set(seq, outcome);
    pending.delete(seq);
  };

  try {
    while (pending.size > 0 && !options.signal?.aborted) {
      await held.renewExpiring();
      while (!pending.has(String(pendingSequences[pendingSequences.length - 1]))) pendingSequences.pop();
      const lastPending = pendingSequences[pendingSequences.length - 1];
      // Ask for no more than the snapshot holds up to the last pending message: that way
      // messages beyond it (or sent during the run) are rarely even locked.
      const ahead = countAfter(peekedSequences, lastSeen) - countAfter(peekedSequences, lastPending);
      const received = await bus.receive(source.queue, { subQueue: source.subQueue, maxMessages: Math.min(Math.max(ahead, 1), batchSize), maxWaitMs: 0 });
      if (received.length === 0) break;
      const toSettle: Pairing[] = [];
      let beyondSnapshot = false;
      for (const message of received) {
        const seq = BigInt(message.sequenceNumber);
        if (seq > lastSeen) lastSeen = seq;
        if (seq > end) beyondSnapshot = true;
        const planned = pending.get(message.sequenceNumber);
        if (planned === undefined || planned.message.messageId !== message.messageId) {
          held.add(message);
          continue;
        }
        const now = decide(options.rules, message, messageFacts(message), clock.now());
        if (now.rule?.index !== planned.rule?.index) {
          held.add(message);
          finish(message.sequenceNumber, { status: 'failed', error: `changed since the snapshot (now ${now.rule ? `rule "${now.rule.name}"` : 'no rule'}); left in place` });
          continue;
        }
        toSettle.push({ received: message, planned });
      }
      await settle(bus, source, toSettle, clock.now(), held, finish, options.countRequeues === true);
      options.progress?.(total - pending.size, total);
      if (beyondSnapshot) break;
    }
  } finally {
    await held.releaseAll();
  }
  const interrupted = options.signal?.aborted === true;
  for (const seq of pending.keys()) outcomes.set(seq, { status: 'failed', error: interrupted ? INTERRUPTED : NOT_RECEIVED });
  return { outcomes, released: held.released, releaseErrors: held.releaseErrors, interrupted };
}

/** How many of the ascending `sorted` are greater than `value`. */
function countAfter(sorted: readonly bigint[], value: bigint): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid] <= value) low = mid + 1;
    else high = mid;
  }
  return sorted.length - low;
}

/** Sends the resubmissions (one send per work queue), then completes every original. */
async function settle(
  bus: MessageBus,
  source: SourceLocation,
  pairs: readonly Pairing[],
  now: Date,
  held: HeldMessages,
  finish: (seq: string, outcome: Outcome) => void,
  countRequeues: boolean,
): Promise<void> {
  const byTarget = new Map<string, Pairing[]>();
  const toComplete: Array<{ pair: Pairing; outcome: Outcome }> = [];
  for (const pair of pairs) {
    if (pair.planned.action === 'Skip') toComplete.push({ pair, outcome: { status: 'skipped' } });
    else byTarget.set(pair.planned.target as string, [...(byTarget.get(pair.planned.target as string) ?? []), pair]);
  }
  for (const [target, group] of byTarget) {
    try {
      await bus.send(target, group.map((pair) => resubmission(pair.received, source, now, countRequeues, pair.planned.decision === 'forced')));
    } catch (err) {
      for (const pair of group) {
        held.add(pair.received);
        finish(pair.received.sequenceNumber, { status: 'failed', error: `sending to ${target} failed: ${errorMessage(err)}; left in place` });
      }
      continue;
    }
    toComplete.push(...group.map((pair) => ({ pair, outcome: { status: 'resubmitted', target } as Outcome })));
  }
  for (const { pair, outcome } of toComplete) {
    const seq = pair.received.sequenceNumber;
    try {
      await bus.complete(pair.received);
      finish(seq, outcome);
    } catch (err) {
      const why = `${isBusError(err, 'LockLost') ? 'lock lost: ' : ''}${errorMessage(err)}`;
      const error =
        outcome.status === 'resubmitted'
          ? `the resubmission to ${outcome.target} was sent, but the original could not be removed (${why}); run again to remove it (the second resubmission has the same message id and is dropped as a duplicate)`
          : `could not be removed (${why}); run again`;
      finish(seq, { status: 'failed', error });
    }
  }
}
