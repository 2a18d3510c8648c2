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
  /** As the host sends it: already counting the current delivery (1 on the first). */
  deliveryCount: number;
  enqueuedTime: Date;
  sequenceNumber: number;
  timeToLiveMs?: number;
  lockToken: string;
}

const LOCK_TOKEN_MARKER = Buffer.from('x-opt-lock-token');

/** A GUID in .NET `Guid.ToByteArray()` order (the first three groups little-endian). */
function guidBytes(guid: string): Buffer {
  const [a, b, c, d, e] = guid.split('-');
  const hex = (s: string) => Buffer.from(s, 'hex');
  return Buffer.concat([hex(a).reverse(), hex(b).reverse(), hex(c).reverse(), hex(d), hex(e)]);
}

/** The SDK binding's content: lock token, marker, then the AMQP message (data-section body). */
export function hostBindingContent(m: HostMessage): Buffer {
  const encoded = amqpMessage.encode({
    message_id: m.messageId,
    subject: m.subject,
    correlation_id: m.correlationId,
    content_type: m.contentType,
    delivery_count: m.deliveryCount,
    ttl: m.timeToLiveMs,
    application_properties: m.applicationProperties ?? {},
    message_annotations: { 'x-opt-enqueued-time': m.enqueuedTime, 'x-opt-sequence-number': types.wrap_long(m.sequenceNumber) },
    body: amqpMessage.data_section(Buffer.from(m.body, 'utf8')),
  });
  return Buffer.concat([guidBytes(m.lockToken), LOCK_TOKEN_MARKER, encoded]);
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

/** `{ messages, actions }` exactly as @azure/functions builds it for an `sdkBinding` trigger. */
export function bindHostMessage(m: HostMessage): ServiceBusTriggerInput {
  const source = 'AzureServiceBusReceivedMessage';
  return ResourceFactoryResolver.getInstance().createClient(source, {
    content: hostBindingContent(m),
    contentType: 'application/octet-stream',
    source,
    version: '1.0',
  }) as ServiceBusTriggerInput;
}
