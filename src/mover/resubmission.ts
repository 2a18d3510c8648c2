import { createHash } from 'node:crypto';
import type { ApplicationProperties, BusMessage, OutgoingMessage, SubQueue } from '../bus/message-bus';
import { FORCE_APPLY, RESUBMITTED_FROM, withoutErrorProperties } from '../bus/message-properties';

/**
 * The message sent back to a work queue: same body, subject, correlation id, content type and
 * application properties, minus the error properties and the dead-letter reason/description.
 * It is a new message (delivery count starts again, full time to live) with a new message id:
 * the original id is still inside the work queue's duplicate-detection window and would be
 * dropped silently.
 */

/** Properties that describe the failure, not the change: dropped on resubmit. */
const DEAD_LETTER_PROPERTIES = ['DeadLetterReason', 'DeadLetterErrorDescription', 'DeadLetterSource'];

/** When it was resubmitted (ISO 8601 UTC). */
const RESUBMITTED_AT = 'ResubmittedAt';


/**
 * How many times the scheduled requeue has sent this message back (an integer; absent = 0). Not
 * an error property, so `withoutErrorProperties` keeps it, and the processor's parked copy keeps
 * every property of the message it parks: the count survives the round trip work queue → park →
 * work queue. Only the scheduled requeue raises it; a resubmission by a person keeps it as it is.
 */
export const REQUEUE_COUNT = 'RequeueCount';

/** The requeue count a message carries (0 when absent or not a non-negative integer). */
export function requeueCountOf(properties: ApplicationProperties): number {
  const value = Number(properties[REQUEUE_COUNT]);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

const RESUBMIT_MARK = ':r:';
const MAX_MESSAGE_ID = 128;

export interface SourceLocation {
  queue: string;
  subQueue?: SubQueue;
}

/** `sbqnormal` or `sbqnormal/$deadletterqueue` (the Service Bus path of a dead-letter subqueue). */
export function sourcePath(source: SourceLocation): string {
  return source.subQueue === 'deadLetter' ? `${source.queue}/$deadletterqueue` : source.queue;
}

/**
 * The id of the resubmission: the original id (without an earlier resubmission suffix) plus
 * the source queue and sequence number. Deterministic, so that a run interrupted between send
 * and complete, and run again, sends the same id and the broker drops the second copy; unique
 * per source message, so that a message that failed again can be resubmitted again.
 */
export function resubmissionId(messageId: string, source: SourceLocation, sequenceNumber: string): string {
  const mark = messageId.indexOf(RESUBMIT_MARK);
  const base = mark >= 0 ? messageId.slice(0, mark) : messageId;
  const suffix = `${RESUBMIT_MARK}${source.queue}${source.subQueue === 'deadLetter' ? '.dl' : ''}:${sequenceNumber}`;
  const id = `${base}${suffix}`;
  if (id.length <= MAX_MESSAGE_ID) return id;
  // Too long for Service Bus: keep it deterministic and unique by hashing the whole of it.
  return `${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 32)}${RESUBMIT_MARK}${sequenceNumber}`;
}

/**
 * Application properties of the resubmission; with `countRequeue` (the scheduled requeue)
 * {@link REQUEUE_COUNT} is one higher than the message's.
 */
export function resubmittedProperties(
  properties: ApplicationProperties,
  source: SourceLocation,
  sequenceNumber: string,
  now: Date,
  countRequeue = false,
  force = false,
): ApplicationProperties {
  const kept = withoutErrorProperties(properties);
  for (const name of DEAD_LETTER_PROPERTIES) delete kept[name];
  delete kept[FORCE_APPLY];
  if (force) kept[FORCE_APPLY] = true;
  if (countRequeue) kept[REQUEUE_COUNT] = requeueCountOf(properties) + 1;
  return { ...kept, [RESUBMITTED_FROM]: `${sourcePath(source)}#${sequenceNumber}`, [RESUBMITTED_AT]: now.toISOString() };
}

/** The message sent back; `force`: {@link FORCE_APPLY} (a person's `--include-superseded`). */
export function resubmission(message: BusMessage, source: SourceLocation, now: Date, countRequeue = false, force = false): OutgoingMessage {
  const out: OutgoingMessage = {
    body: message.body,
    messageId: resubmissionId(message.messageId, source, message.sequenceNumber),
    applicationProperties: resubmittedProperties(message.applicationProperties, source, message.sequenceNumber, now, countRequeue, force),
  };
  if (message.subject !== undefined) out.subject = message.subject;
  if (message.correlationId !== undefined) out.correlationId = message.correlationId;
  if (message.contentType !== undefined) out.contentType = message.contentType;
  return out;
}
