import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import Long from 'long';
import { message as amqpMessage, type Message as RheaMessage } from 'rhea';

/** The `source` of the host's SDK binding data for a Service Bus trigger. */
export const BINDING_SOURCE = 'AzureServiceBusReceivedMessage';

/** The binding data starts with the lock token: a GUID in .NET `Guid.ToByteArray()` order. */
export const LOCK_TOKEN_BYTES = 16;

type AnnotatedMessage = ServiceBusReceivedMessage['_rawAmqpMessage'];
type Annotations = Record<string, unknown>;

/**
 * The lock token of .NET `Guid.ToByteArray()` bytes: the first three groups are little-endian,
 * the last two as they are (`System.Guid`; the extension's `LockTokenUtil` reads it the same way).
 */
export function lockTokenFromBytes(bytes: Uint8Array): string {
  if (bytes.byteLength !== LOCK_TOKEN_BYTES) throw new Error(`lock token: expected ${LOCK_TOKEN_BYTES} bytes, got ${bytes.byteLength}`);
  const hex = (from: number, to: number, reverse: boolean) => {
    const part = Buffer.from(bytes.subarray(from, to));
    return (reverse ? part.reverse() : part).toString('hex');
  };
  return [hex(0, 4, true), hex(4, 6, true), hex(6, 8, true), hex(8, 10, false), hex(10, 16, false)].join('-');
}

/**
 * One message of the host's SDK binding data, as the Service Bus extension builds it
 * (`ServiceBusExtensionConfigProvider.ConvertReceivedMessageToBindingData`): 16 bytes of lock
 * token, then the AMQP message the .NET SDK received, re-serialized with its header (delivery
 * count, TTL), message annotations (enqueued time, sequence number, locked-until), properties,
 * application properties and body. `@azure/functions-extensions-servicebus` 0.2.0-preview
 * decodes from after an `x-opt-lock-token` symbol instead and loses the header (delivery count
 * 0, no TTL); this decoder starts at byte 16, as the .NET isolated worker does.
 *
 * The header's delivery count is taken as it is: the .NET SDK has already added the current
 * delivery to the broker's count of earlier ones before the host serialized it (1 on the
 * first delivery), which is how the port counts too.
 */
export function decodeBindingData(content: Uint8Array): ServiceBusReceivedMessage {
  if (content.byteLength <= LOCK_TOKEN_BYTES) throw new Error(`Service Bus binding data: expected a lock token and an AMQP message, got ${content.byteLength} bytes`);
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const lockToken = lockTokenFromBytes(bytes.subarray(0, LOCK_TOKEN_BYTES));
  // rhea types `decode`'s result loosely (any fields); its connection `Message` names them.
  return fromRheaMessage(amqpMessage.decode(bytes.subarray(LOCK_TOKEN_BYTES)) as unknown as RheaMessage, lockToken);
}

/** Message states of the `x-opt-message-state` annotation (Service Bus). */
const STATES = ['active', 'deferred', 'scheduled'] as const;

function fromRheaMessage(m: RheaMessage, lockToken: string): ServiceBusReceivedMessage {
  const annotations = (m.message_annotations ?? {}) as Annotations;
  const applicationProperties = (m.application_properties ?? {}) as Record<string, string | number | boolean | Date | null>;
  const enqueuedTimeUtc = asDate(annotations['x-opt-enqueued-time']);
  const timeToLive = typeof m.ttl === 'number' ? m.ttl : undefined;
  const body = bodyOf(m.body);
  const expiresAtUtc = enqueuedTimeUtc && timeToLive !== undefined ? new Date(enqueuedTimeUtc.getTime() + timeToLive) : asDate(m.absolute_expiry_time);
  const state = STATES[Number(annotations['x-opt-message-state'] ?? 0)] ?? 'active';
  return {
    body: body.value,
    messageId: idOf(m.message_id),
    correlationId: idOf(m.correlation_id),
    contentType: m.content_type,
    subject: m.subject,
    to: m.to,
    replyTo: m.reply_to,
    sessionId: m.group_id,
    replyToSessionId: m.reply_to_group_id,
    partitionKey: annotations['x-opt-partition-key'] as string | undefined,
    timeToLive,
    applicationProperties,
    deliveryCount: typeof m.delivery_count === 'number' ? m.delivery_count : 0,
    lockToken,
    enqueuedTimeUtc,
    expiresAtUtc,
    lockedUntilUtc: asDate(annotations['x-opt-locked-until']),
    scheduledEnqueueTimeUtc: asDate(annotations['x-opt-scheduled-enqueue-time']),
    sequenceNumber: asLong(annotations['x-opt-sequence-number']),
    enqueuedSequenceNumber: asNumber(annotations['x-opt-enqueue-sequence-number']),
    deadLetterReason: applicationProperties.DeadLetterReason as string | undefined,
    deadLetterErrorDescription: applicationProperties.DeadLetterErrorDescription as string | undefined,
    deadLetterSource: annotations['x-opt-deadletter-source'] as string | undefined,
    state,
    _rawAmqpMessage: rawMessage(m, body),
  };
}

interface Body {
  value: unknown;
  type: AnnotatedMessage['bodyType'];
}

/** Data sections → their bytes (concatenated); a sequence or value section → its content. */
function bodyOf(section: unknown): Body {
  if (typeof section !== 'object' || section === null || !('typecode' in section)) return { value: section, type: 'value' };
  const { typecode, content, multiple } = section as { typecode: number; content: unknown; multiple?: boolean };
  if (typecode === 0x75) return { value: multiple ? Buffer.concat(content as Buffer[]) : content, type: 'data' };
  if (typecode === 0x76) return { value: content, type: 'sequence' };
  return { value: content, type: 'value' };
}

/** The AMQP view the SDK type carries (`_rawAmqpMessage`), for callers that read raw sections. */
function rawMessage(m: RheaMessage, body: Body): AnnotatedMessage {
  return {
    header: { deliveryCount: m.delivery_count, timeToLive: m.ttl, durable: m.durable, firstAcquirer: m.first_acquirer, priority: m.priority },
    deliveryAnnotations: m.delivery_annotations,
    messageAnnotations: m.message_annotations,
    applicationProperties: m.application_properties,
    properties: {
      messageId: idOf(m.message_id),
      correlationId: idOf(m.correlation_id),
      contentType: m.content_type,
      subject: m.subject,
      to: m.to,
      replyTo: m.reply_to,
      groupId: m.group_id,
      replyToGroupId: m.reply_to_group_id,
      absoluteExpiryTime: asDate(m.absolute_expiry_time)?.getTime(),
      creationTime: asDate(m.creation_time)?.getTime(),
    },
    footer: m.footer,
    body: body.value,
    bodyType: body.type,
  };
}

function idOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function asDate(value: unknown): Date | undefined {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  return undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** rhea reads a long that does not fit a double's integers as its 8 big-endian bytes. */
function asLong(value: unknown): Long | undefined {
  if (typeof value === 'number') return Long.fromNumber(value);
  if (Buffer.isBuffer(value) && value.length === 8) return Long.fromBytesBE([...value]);
  return undefined;
}
