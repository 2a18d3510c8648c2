import { randomUUID } from 'node:crypto';
import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import type {
  ApplicationProperties,
  BusMessage,
  OutgoingMessage,
  PropertyValue,
  ReceivedMessage,
  SubQueue,
} from '../message-bus';

/**
 * Conversion between the port's messages and `@azure/service-bus` messages. Bodies always travel
 * as bytes (an AMQP data section): the SDK would JSON-encode a string body (`"{\"a\":1}"`),
 * which other consumers (the Functions extension, .NET) would see as a quoted string.
 */

/** The SDK message for a port message; a missing `messageId` becomes a random UUID. */
export function toServiceBusMessage(message: OutgoingMessage): ServiceBusMessage {
  const sdk: ServiceBusMessage = {
    body: typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : Buffer.from(message.body),
    // The port promises a random id when none is given (the SDK would send none).
    messageId: message.messageId ?? randomUUID(),
  };
  if (message.subject !== undefined) sdk.subject = message.subject;
  if (message.correlationId !== undefined) sdk.correlationId = message.correlationId;
  if (message.contentType !== undefined) sdk.contentType = message.contentType;
  if (message.timeToLiveMs !== undefined) sdk.timeToLive = message.timeToLiveMs;
  if (message.scheduledEnqueueTime !== undefined) sdk.scheduledEnqueueTimeUtc = message.scheduledEnqueueTime;
  if (message.applicationProperties !== undefined) sdk.applicationProperties = { ...message.applicationProperties };
  return sdk;
}

/** Bytes of a received body: a data section arrives as a Buffer; other senders may use an AMQP value. */
export function bodyBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body === undefined || body === null) return new Uint8Array(0);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** A 64-bit AMQP long (the `long` package's Long) or a plain number, as an exact decimal string. */
export function longToString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  if (typeof value === 'object' && typeof (value as { toString: unknown }).toString === 'function') {
    return (value as { toString(radix?: number): string }).toString(10);
  }
  return String(value);
}

/**
 * A property value the port can carry: dates become ISO strings, 64-bit longs exact decimal
 * strings (numbers when they fit a double exactly), bytes base64.
 */
function toPropertyValue(value: unknown): PropertyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (isLong(value)) {
    const text = value.toString();
    return Number.isSafeInteger(Number(text)) ? Number(text) : text;
  }
  return JSON.stringify(value);
}

/** The `long` package's Long (its `toString()` is the exact decimal value). */
function isLong(value: unknown): value is { toString(): string } {
  return typeof value === 'object' && value !== null && 'high' in value && 'low' in value && 'unsigned' in value;
}

export function toApplicationProperties(properties: Record<string, unknown> | undefined): ApplicationProperties {
  const out: ApplicationProperties = {};
  for (const [name, value] of Object.entries(properties ?? {})) out[name] = toPropertyValue(value);
  return out;
}

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return String(value);
}

/** The SDK writes `DeadLetterReason` / `DeadLetterErrorDescription` into application properties too. */
const DEAD_LETTER_PROPERTY_NAMES = new Set(['DeadLetterReason', 'DeadLetterErrorDescription']);

/** Where a message was read from. */
export interface MessageLocation {
  queue: string;
  subQueue?: SubQueue;
}

/**
 * The port's view of a peeked or received SDK message. `deliveryCount` here is the broker's raw
 * count (0 for a message never delivered); {@link fromReceivedMessage} counts the current delivery.
 */
export function fromServiceBusMessage(message: ServiceBusReceivedMessage, location: MessageLocation): BusMessage {
  const applicationProperties = toApplicationProperties(message.applicationProperties);
  for (const name of DEAD_LETTER_PROPERTY_NAMES) delete applicationProperties[name];
  const enqueuedTime = message.enqueuedTimeUtc ?? new Date(0);
  const out: BusMessage = {
    body: bodyBytes(message.body),
    messageId: optionalText(message.messageId) ?? '',
    applicationProperties,
    sequenceNumber: longToString(message.sequenceNumber),
    deliveryCount: message.deliveryCount ?? 0,
    enqueuedTime,
    expiresAt: message.expiresAtUtc ?? new Date(8640000000000000),
  };
  const subject = optionalText(message.subject);
  if (subject !== undefined) out.subject = subject;
  const correlationId = optionalText(message.correlationId);
  if (correlationId !== undefined) out.correlationId = correlationId;
  if (message.contentType !== undefined) out.contentType = message.contentType;
  if (message.scheduledEnqueueTimeUtc !== undefined) out.scheduledEnqueueTime = message.scheduledEnqueueTimeUtc;
  if (message.deadLetterReason !== undefined) out.deadLetterReason = message.deadLetterReason;
  if (message.deadLetterErrorDescription !== undefined) out.deadLetterErrorDescription = message.deadLetterErrorDescription;
  if (message.deadLetterSource !== undefined) out.deadLetterSource = message.deadLetterSource;
  // The broker sets DeadLetterSource only for messages forwarded from another entity; the port
  // names the queue itself for its own dead-letter subqueue.
  else if (location.subQueue === 'deadLetter') out.deadLetterSource = location.queue;
  return out;
}

/**
 * A message received in peek-lock mode. The SDK reports the broker's count of previous
 * deliveries (0 on the first); the port counts the current one too (1 on the first), as the
 * Functions host and .NET do.
 */
export function fromReceivedMessage(message: ServiceBusReceivedMessage, location: MessageLocation): ReceivedMessage {
  if (message.lockToken === undefined) throw new Error('received message has no lock token (not received in peek-lock mode)');
  const base = fromServiceBusMessage(message, location);
  const received: ReceivedMessage = {
    ...base,
    deliveryCount: base.deliveryCount + 1,
    lockToken: message.lockToken,
    lockedUntil: message.lockedUntilUtc ?? new Date(0),
    queue: location.queue,
  };
  if (location.subQueue !== undefined) received.subQueue = location.subQueue;
  return received;
}
