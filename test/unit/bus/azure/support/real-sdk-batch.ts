import { ServiceBusClient, type ServiceBusMessageBatch } from '@azure/service-bus';
import { message as amqpMessage } from 'rhea-promise';

/**
 * Real `ServiceBusMessageBatch` objects without a broker. The SDK asks the sender link for the
 * broker's size limit before it builds a batch; that one lookup is answered locally (an internal
 * of @azure/service-bus 7.9: `sender._sender.getMaxMessageSize`), everything else — AMQP encoding,
 * size accounting, validation — is the SDK's own. No connection is opened.
 */
export class RealSdkBatches {
  private readonly client = new ServiceBusClient('Endpoint=sb://unit-test.invalid/;SharedAccessKeyName=test;SharedAccessKey=not-a-secret');

  async create(queue: string, maxSizeInBytes: number): Promise<ServiceBusMessageBatch> {
    const sender = this.client.createSender(queue);
    (sender as unknown as { _sender: { getMaxMessageSize(): Promise<number> } })._sender.getMaxMessageSize = async () => maxSizeInBytes;
    return sender.createMessageBatch();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The AMQP messages inside a batch, decoded from the bytes the SDK would put on the wire. */
export function decodeBatch(batch: ServiceBusMessageBatch): ReturnType<typeof amqpMessage.decode>[] {
  const wire = (batch as unknown as { _generateMessage(): Buffer })._generateMessage();
  const outer = amqpMessage.decode(wire);
  const sections = (outer.body as { content: Buffer | Buffer[] }).content;
  return (Array.isArray(sections) ? sections : [sections]).map((section) => amqpMessage.decode(section));
}
