import type { OutgoingMessage } from '../bus/message-bus';
import { toOutgoingMessage } from '../bus/message-properties';
import { JobActionType } from '../model/job';
import { pairJobName, type PairSideName } from '../model/pair';
import { createQueueMessage, type QueueMessage } from '../model/queue-message';
import { sha256Hex } from '../platform/sha256';
import type { PairConflict } from './coupling-store';

/** The conflict as decided: `take`'s values win (the next sync of the record applies them). */
export function resolvedConflict(conflict: PairConflict, take: PairSideName, now: Date): PairConflict {
  return { ...conflict, resolution: take, resolvedAt: now.toISOString() };
}

/**
 * The notice that makes the record sync again once its conflict is decided: a change of the
 * winning side's record, for that side's job (which writes the other side). Like every pair
 * message it carries no values: processing reads both records as they are now and applies the
 * resolution it finds on the conflict.
 */
export function resolutionMessage(conflict: PairConflict, take: PairSideName, now: Date): QueueMessage {
  return createQueueMessage({
    jobName: pairJobName(conflict.pair, take),
    action: JobActionType.NewUpdate,
    sourceKey: take === 'a' ? conflict.keyA : conflict.keyB,
    targetKey: {},
    fields: {},
    changeTracker: conflict[take].tracker ?? '',
    detectedAt: now.toISOString(),
  });
}

/**
 * The broker message of a resolution notice. Its id is the resolution's own, not the change's
 * (job, key, tracker): the change with that tracker was sent when the conflict arose, and within
 * the duplicate detection window the broker would drop a message with its id.
 */
export function resolutionOutgoing(message: QueueMessage, conflict: PairConflict): OutgoingMessage {
  const id = sha256Hex(JSON.stringify(['resolve', conflict.pair, conflict.keyA, conflict.resolution ?? '', conflict.resolvedAt ?? ''])).slice(0, 32);
  return { ...toOutgoingMessage(message), messageId: id };
}
