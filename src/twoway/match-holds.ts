import type { OutgoingMessage } from '../bus/message-bus';
import { toOutgoingMessage } from '../bus/message-properties';
import { JobActionType } from '../model/job';
import { pairJobName, type Pair, type PairSideName } from '../model/pair';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../model/queue-message';
import { joinSourceKey } from '../model/source-key';
import { sha256Hex } from '../platform/sha256';
import type { CouplingStore, PairConflict } from './coupling-store';
import type { InitialMatch } from './initial-match';

/**
 * Holds: `highwater pairs match --apply` parks each ambiguous record as a conflict whose first
 * field is {@link AMBIGUOUS}, so that an operator sees it beside the other conflicts (`highwater
 * conflicts list`, the status page). Until it is resolved, detection does not send the record's
 * changes (see `echo-check.ts`): its first sync would create it on the other side, a duplicate
 * of one of its candidates. `highwater conflicts resolve PAIR KEY_A --take SIDE`, with the side the
 * record is on, lets it go: the sync that sends creates it on the other side. A record found again
 * by a later `pairs match --apply` (after its data was fixed) loses its hold, and is sent a sync
 * ({@link releaseNotice}): detection passed its changes while it was held.
 */

/** First field of a hold. */
export const AMBIGUOUS = '(ambiguous)';

/** Whether a parked conflict is a hold of `pairs match` that nobody resolved yet. */
export function isOpenHold(conflict: PairConflict): boolean {
  return conflict.fields[0] === AMBIGUOUS && conflict.resolution === undefined;
}

/** The keys on `side` of the records `pair` holds. */
export async function heldKeys(store: CouplingStore, pair: string, side: PairSideName): Promise<Set<string>> {
  const held = (await store.listConflicts(pair)).filter(isOpenHold);
  return new Set(held.map((c) => (side === 'a' ? c.keyA : c.keyB)));
}

/** The key the record's fields map to on the other side (as pair-sync finds it); undefined when a part is empty. */
function otherKeyOf(message: QueueMessage, otherKeyFields: readonly string[]): string | undefined {
  const parts = otherKeyFields.map((field) => message.targetKey[field]);
  return parts.some((v) => v === undefined || v === null || v === '') ? undefined : joinSourceKey(parts);
}

/** The record's fields without the match values the read added (`$match:…`). */
function ownFields(message: QueueMessage): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(message.fields).filter(([name]) => !name.startsWith('$match:')));
}

/**
 * One hold per ambiguous record, keyed as the pair's sync keys the record's conflicts: by its a
 * key, for a b record the a key its fields map to. A record without such a key is not held (its
 * sync cannot create it on the other side anyway).
 */
export function holdsOf(pair: Pair, found: InitialMatch, records: Record<PairSideName, readonly QueueMessage[]>, now: Date): PairConflict[] {
  const bySide = {
    a: new Map(records.a.map((m) => [m.sourceKey, m])),
    b: new Map(records.b.map((m) => [m.sourceKey, m])),
  };
  const holds: PairConflict[] = [];
  for (const group of found.ambiguous) {
    for (const side of ['a', 'b'] as const) {
      const other = side === 'a' ? 'b' : 'a';
      for (const key of group[side]) {
        const message = bySide[side].get(key);
        const otherKey = message && otherKeyOf(message, pair[other].key);
        if (!message || otherKey === undefined) continue;
        const present = { values: ownFields(message), tracker: message.changeTracker };
        const absent = { values: {}, tracker: null };
        holds.push({
          pair: pair.name,
          keyA: side === 'a' ? key : otherKey,
          keyB: side === 'a' ? otherKey : key,
          fields: [AMBIGUOUS, ...group[other].map((candidate) => `candidate ${other} ${candidate}`)],
          a: side === 'a' ? present : absent,
          b: side === 'a' ? absent : present,
          detectedAt: now.toISOString(),
        });
      }
    }
  }
  return holds;
}

/** The side a hold's record is on: the one with a version (the other is empty). */
export function heldSide(hold: PairConflict): PairSideName {
  return hold.a.tracker !== null ? 'a' : 'b';
}

/**
 * The notice that syncs a released record now (coupled meanwhile: merged; else created on the
 * other side): a change of the record for its side's job, carrying no values — processing reads
 * both sides as they are, as for every pair message. Its message id is the release's own, so that
 * the broker's duplicate detection does not take it for the change detection passed.
 */
export function releaseNotice(hold: PairConflict, tracker: string, now: Date): { message: QueueMessage; outgoing: OutgoingMessage } {
  const side = heldSide(hold);
  const message = createQueueMessage({
    jobName: pairJobName(hold.pair, side),
    action: JobActionType.NewUpdate,
    sourceKey: side === 'a' ? hold.keyA : hold.keyB,
    targetKey: {},
    fields: {},
    changeTracker: tracker,
    detectedAt: now.toISOString(),
  });
  const id = sha256Hex(JSON.stringify(['release', hold.pair, hold.keyA, now.toISOString()])).slice(0, 32);
  return { message, outgoing: { ...toOutgoingMessage(message), messageId: id } };
}
