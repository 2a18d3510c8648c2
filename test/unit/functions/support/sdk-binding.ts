import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import { message as amqpMessage, types } from 'rhea';
import '../../../../functions/support/service-bus-extension';
import type { ServiceBusTriggerInput } from '../../../../functions/support/queue-trigger';

/** A message as the Functions host (.NET Service Bus extension) forwards it to the worker. */
export interface HostMessage {
  body: string;
  messageId: string;
  subject?: string;
  correlationId?: string;
  contentType?: string;
  applicationProperties?: Record<string, string | number | boolean>;
  /**
   * The AMQP header's `delivery-count` as the host serializes it. The broker sends the number of
   * earlier failed deliveries (0 on the first); the .NET SDK adds 1 when it receives the message
   * (`AmqpMessageConverter.AmqpMessageToAnnotatedMessage`, unless peeked), and the host writes
   * that message back to bytes unchanged (`AmqpAnnotatedMessage.ToBytes`). So: 1 on the first.
   */
  deliveryCount: number;
  enqueuedTime: Date;
  /** A bigint for values beyond 2^53 (partitioned entities use the top 16 bits). */
  sequenceNumber: number | bigint;
  timeToLiveMs?: number;
  lockToken: string;
  /** The broker's `x-opt-locked-until`; default: a minute from now (just received, 60 s lock). */
  lockedUntil?: Date;
}

/** A GUID in .NET `Guid.ToByteArray()` order (the first three groups little-endian). */
export function guidBytes(guid: string): Buffer {
  const [a, b, c, d, e] = guid.split('-');
  const hex = (s: string) => Buffer.from(s, 'hex');
  return Buffer.concat([hex(a).reverse(), hex(b).reverse(), hex(c).reverse(), hex(d), hex(e)]);
}

function int64Bytes(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(value);
  return bytes;
}

/**
 * The AMQP message as the .NET SDK re-serializes a received message: header (delivery count,
 * TTL), message annotations as the broker sets them (enqueued time, sequence number,
 * locked-until, and the lock token as an AMQP uuid: the symbol the extension's 0.2.0 decoder
 * searches for), properties, application properties and one data section.
 */
function hostAmqpMessage(m: HostMessage): Buffer {
  return amqpMessage.encode({
    durable: true,
    delivery_count: m.deliveryCount,
    ttl: m.timeToLiveMs,
    message_annotations: {
      'x-opt-enqueued-time': m.enqueuedTime,
      'x-opt-sequence-number': types.wrap_long(typeof m.sequenceNumber === 'bigint' ? int64Bytes(m.sequenceNumber) : m.sequenceNumber),
      'x-opt-locked-until': m.lockedUntil ?? new Date(Date.now() + 60_000),
      'x-opt-lock-token': types.wrap_uuid(Buffer.from(m.lockToken.replace(/-/g, ''), 'hex')),
    },
    message_id: m.messageId,
    subject: m.subject,
    correlation_id: m.correlationId,
    content_type: m.contentType,
    application_properties: m.applicationProperties ?? {},
    body: amqpMessage.data_section(Buffer.from(m.body, 'utf8')),
  });
}

/**
 * The SDK binding's content as the host builds it
 * (`ServiceBusExtensionConfigProvider.ConvertReceivedMessageToBindingData`): 16 bytes of lock
 * token, then the AMQP message.
 */
export function hostBindingContent(m: HostMessage): Buffer {
  return Buffer.concat([guidBytes(m.lockToken), hostAmqpMessage(m)]);
}

/** One `ModelBindingData` as @azure/functions receives it from the host. */
export function modelBindingData(m: HostMessage) {
  const source = 'AzureServiceBusReceivedMessage';
  return { content: hostBindingContent(m), contentType: 'application/octet-stream', source, version: '1.0' };
}

/**
 * Where the extension's settlement client connects: it reads the worker's command line
 * (`--host`, `--port`, `--functions-grpc-max-message-length`) the first time actions are built.
 */
export function useSettlementEndpoint(port: number): () => void {
  const saved = process.argv;
  process.argv = [...saved, '--host', '127.0.0.1', '--port', String(port), '--functions-grpc-max-message-length', String(4 * 1024 * 1024)];
  return () => {
    process.argv = saved;
  };
}

/**
 * `{ messages, actions }` exactly as @azure/functions builds it for an `sdkBinding` trigger
 * with `cardinality: 'many'`: a `collectionModelBindingData` goes to the factory as an array
 * (`fromRpcTypedData`), one entry per message.
 */
export function bindHostMessages(messages: HostMessage[]): ServiceBusTriggerInput {
  const bindings = messages.map(modelBindingData);
  return ResourceFactoryResolver.getInstance().createClient(bindings[0]?.source, bindings) as ServiceBusTriggerInput;
}

/** A batch of one. */
export function bindHostMessage(m: HostMessage): ServiceBusTriggerInput {
  return bindHostMessages([m]);
}
