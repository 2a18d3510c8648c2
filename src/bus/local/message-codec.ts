import { randomUUID } from 'node:crypto';
import {
  BusError,
  type ApplicationProperties,
  type BusMessage,
  type OutgoingMessage,
  type PropertyValue,
  type ReceivedMessage,
} from '../message-bus';
import { bodyBytes, readProps, storedTime } from './row-defects';

/** A `messages` row (a message's state) as read back by SELECT or RETURNING. */
export interface StateRow {
  seq: number;
  dead: number;
  expires_at: number;
  scheduled_at: number | null;
  lock_token: string | null;
  locked_until: number | null;
  delivery_count: number;
  props: string | null;
  dl_reason: string | null;
  dl_description: string | null;
}

/** A `contents` row (what was sent). */
export interface ContentRow {
  message_id: string;
  enqueued_at: number;
  subject: string | null;
  correlation_id: string | null;
  content_type: string | null;
  body: Buffer;
}

/** An outgoing message checked and encoded for INSERT, with its size. */
export interface EncodedMessage {
  messageId: string;
  subject: string | null;
  correlationId: string | null;
  contentType: string | null;
  props: string | null;
  body: Buffer;
  timeToLiveMs: number | undefined;
  scheduledAt: number | undefined;
  size: number;
}

function propertyBytes(value: PropertyValue): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return 8;
  return 1;
}

const optionalBytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text));

/**
 * Checks the application properties and counts their bytes (keys and values) in one pass: this
 * runs once per sent message. @throws BusError `InvalidArgument` for a value of another type.
 */
function encodeProperties(props: ApplicationProperties | undefined, index: number): { json: string | null; bytes: number } {
  if (props === undefined) return { json: null, bytes: 0 };
  let bytes = 0;
  let count = 0;
  for (const key of Object.keys(props)) {
    const value = props[key];
    const kind = typeof value;
    if (value !== null && kind !== 'string' && kind !== 'number' && kind !== 'boolean') {
      throw new BusError('InvalidArgument', `messages[${index}].applicationProperties.${key} must be a string, number, boolean or null, got ${kind}`);
    }
    bytes += Buffer.byteLength(key) + propertyBytes(value);
    count++;
  }
  return { json: count > 0 ? JSON.stringify(props) : null, bytes };
}

/**
 * Validates and encodes one outgoing message. Its size, counted against the queue's limit, is
 * the body, the header strings and the application properties (keys and values), close to what
 * Service Bus counts, without AMQP framing. @throws BusError `InvalidArgument`.
 */
export function encodeMessage(message: OutgoingMessage, index: number): EncodedMessage {
  const { body } = message;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new BusError('InvalidArgument', `messages[${index}].body must be a string or a Uint8Array`);
  }
  if (message.timeToLiveMs !== undefined && !(Number.isFinite(message.timeToLiveMs) && message.timeToLiveMs > 0)) {
    throw new BusError('InvalidArgument', `messages[${index}].timeToLiveMs must be a positive number, got ${message.timeToLiveMs}`);
  }
  const scheduled = message.scheduledEnqueueTime;
  if (scheduled !== undefined && !(scheduled instanceof Date && Number.isFinite(scheduled.getTime()))) {
    throw new BusError('InvalidArgument', `messages[${index}].scheduledEnqueueTime must be a valid Date`);
  }
  const props = encodeProperties(message.applicationProperties, index);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const headers =
    optionalBytes(message.messageId) + optionalBytes(message.subject) + optionalBytes(message.correlationId) + optionalBytes(message.contentType);
  return {
    messageId: message.messageId ?? randomUUID(),
    subject: message.subject ?? null,
    correlationId: message.correlationId ?? null,
    contentType: message.contentType ?? null,
    props: props.json,
    body: bytes,
    timeToLiveMs: message.timeToLiveMs,
    scheduledAt: scheduled?.getTime(),
    size: bytes.length + headers + props.bytes,
  };
}

/** Bytes a message's rows add besides its size. */
const ROW_OVERHEAD_BYTES = 64;

/** About what storing these messages writes (the WAL checkpointer's estimate). */
export function storedBytes(messages: readonly EncodedMessage[]): number {
  return messages.reduce((sum, m) => sum + m.size + ROW_OVERHEAD_BYTES, 0);
}

/**
 * A message's rows as the port's message. Never throws for what a row holds: unreadable
 * properties are kept as text (see `row-defects.ts`), so that a damaged row can still be listed
 * and moved.
 */
export function decodeRow(state: StateRow, content: ContentRow, queue: string): BusMessage {
  const message: BusMessage = {
    body: bodyBytes(content.body),
    messageId: String(content.message_id),
    applicationProperties: readProps(state.props).props,
    sequenceNumber: String(state.seq),
    deliveryCount: state.delivery_count,
    enqueuedTime: storedTime(content.enqueued_at),
    expiresAt: new Date(state.expires_at),
  };
  if (content.subject !== null) message.subject = content.subject;
  if (content.correlation_id !== null) message.correlationId = content.correlation_id;
  if (content.content_type !== null) message.contentType = content.content_type;
  if (state.scheduled_at !== null) message.scheduledEnqueueTime = new Date(state.scheduled_at);
  if (state.dead) {
    message.deadLetterSource = queue;
    if (state.dl_reason !== null) message.deadLetterReason = state.dl_reason;
    if (state.dl_description !== null) message.deadLetterErrorDescription = state.dl_description;
  }
  return message;
}

/** A claimed message's rows as the port's received message. */
export function decodeReceived(state: StateRow, content: ContentRow, queue: string, dead: boolean): ReceivedMessage {
  const message = decodeRow(state, content, queue) as ReceivedMessage;
  message.lockToken = state.lock_token ?? '';
  message.lockedUntil = new Date(state.locked_until ?? 0);
  message.queue = queue;
  if (dead) message.subQueue = 'deadLetter';
  return message;
}

/** Merges application properties into a stored JSON object (null when the result is empty). */
export function mergeProps(stored: string | null, modify: ApplicationProperties | undefined): string | null {
  if (!modify || Object.keys(modify).length === 0) return stored;
  const merged = { ...readProps(stored).props, ...modify };
  return JSON.stringify(merged);
}
