import { createHash } from 'node:crypto';
import type { ApplicationProperties, BusMessage, OutgoingMessage, SubQueue } from '../../src/bus/message-bus';
import { withoutErrorProperties } from '../../src/bus/message-properties';

/**
 * The message sent back to a work queue: same body, subject, correlation id, content type and
 * application properties, minus the error properties and the dead-letter reason/description.
 * It is a new message (delivery count starts again, full time to live) with a new message id:
 * the original id is still inside the work queue's duplicate-detection window and would be
 * dropped silently.
 */

/** Properties that describe the failure, not the change: dropped on resubmit. */
const DEAD_LETTER_PROPERTIES = ['DeadLetterReason', 'DeadLetterErrorDescription', 'DeadLetterSource'];

/** Where a resubmitted message came from, e.g. `sbqnormal/$deadletterqueue#42`. */
export const RESUBMITTED_FROM = 'ResubmittedFrom';
/** When it was resubmitted (ISO 8601 UTC). */
export const RESUBMITTED_AT = 'ResubmittedAt';

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

/** Application properties of the resubmission. */
export function resubmittedProperties(properties: ApplicationProperties, source: SourceLocation, sequenceNumber: string, now: Date): ApplicationProperties {
  const kept = withoutErrorProperties(properties);
  for (const name of DEAD_LETTER_PROPERTIES) delete kept[name];
  return { ...kept, [RESUBMITTED_FROM]: `${sourcePath(source)}#${sequenceNumber}`, [RESUBMITTED_AT]: now.toISOString() };
}

export function resubmission(message: BusMessage, source: SourceLocation, now: Date): OutgoingMessage {
  const out: OutgoingMessage = {
    body: message.body,
    messageId: resubmissionId(message.messageId, source, message.sequenceNumber),
    applicationProperties: resubmittedProperties(message.applicationProperties, source, message.sequenceNumber, now),
  };
  if (message.subject !== undefined) out.subject = message.subject;
  if (message.correlationId !== undefined) out.correlationId = message.correlationId;
  if (message.contentType !== undefined) out.contentType = message.contentType;
  return out;
}
