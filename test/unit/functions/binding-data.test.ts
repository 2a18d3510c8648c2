import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { decodeBindingData, lockTokenFromBytes } from '../../../functions/support/binding-data';
import { toBusMessage } from '../../../functions/support/service-bus-message';
import { longToString } from '../../../src/bus/azure/message-conversion';
import { bindHostMessages, guidBytes, hostBindingContent, modelBindingData, type HostMessage, useSettlementEndpoint } from './support/sdk-binding';

const ENQUEUED = new Date('2026-03-01T08:00:00.123Z');
const TTL_MS = 14 * 24 * 3600 * 1000;

/** Three messages of one batch; the second is on its third delivery (header delivery_count 3). */
const BATCH: HostMessage[] = [1, 3, 1].map((deliveryCount, i) => ({
  body: JSON.stringify({ version: 1, jobName: 'crm-accounts', sourceKey: `A-${i}` }),
  messageId: `0f3c9a2b7d4e4f0a9b1c2d3e4f5a6b7${i}`,
  subject: 'crm-accounts',
  correlationId: `corr-${i}`,
  contentType: 'application/json',
  applicationProperties: { JobName: 'crm-accounts', SourceKey: `A-${i}`, Attempt: i + 1, Retry: i === 1 },
  deliveryCount,
  enqueuedTime: new Date(ENQUEUED.getTime() + i),
  sequenceNumber: 42 + i,
  timeToLiveMs: TTL_MS,
  lockToken: `6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4${i}`,
  lockedUntil: new Date(ENQUEUED.getTime() + 60_000 + i),
}));

describe('SDK binding data in the host layout (16-byte lock token, then the AMQP message)', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = useSettlementEndpoint(1); // never called here: only the client object is built
  });
  afterAll(() => restore());

  it('decodes a batch of 3 through the registered factory, the way @azure/functions hands a collection over', () => {
    const { messages, actions } = bindHostMessages(BATCH);
    expect(Array.isArray(messages)).toBe(true);
    const sdk = messages as ServiceBusReceivedMessage[];
    expect(sdk.map((m) => m.lockToken)).toEqual(BATCH.map((m) => m.lockToken));
    expect(typeof actions.complete).toBe('function');

    const converted = sdk.map((m) => toBusMessage(m, 'sbqhigh'));
    expect(converted.map((m) => m.deliveryCount)).toEqual([1, 3, 1]);
    converted.forEach((message, i) => {
      const host = BATCH[i];
      expect(message).toMatchObject({
        messageId: host.messageId,
        subject: 'crm-accounts',
        correlationId: host.correlationId,
        contentType: 'application/json',
        applicationProperties: host.applicationProperties,
        sequenceNumber: String(host.sequenceNumber),
        enqueuedTime: host.enqueuedTime,
        expiresAt: new Date(host.enqueuedTime.getTime() + TTL_MS),
      });
      expect(Buffer.from(message.body).toString('utf8')).toBe(host.body);
    });
    expect(sdk[1]).toMatchObject({ deliveryCount: 3, timeToLive: TTL_MS, enqueuedTimeUtc: BATCH[1].enqueuedTime, state: 'active' });
    expect(sdk[1].lockedUntilUtc).toEqual(BATCH[1].lockedUntil);
  });

  it('hands a single binding (cardinality one) over as a batch of one', () => {
    const { messages } = ResourceFactoryResolver.getInstance().createClient('AzureServiceBusReceivedMessage', modelBindingData(BATCH[1])) as { messages: unknown };
    expect(messages).toEqual([expect.objectContaining({ lockToken: BATCH[1].lockToken, deliveryCount: 3 })]);
  });

  it('reads the lock token in .NET Guid.ToByteArray() order', () => {
    const dotnet = Buffer.from('33221100554477668899aabbccddeeff', 'hex');
    expect(lockTokenFromBytes(dotnet)).toBe('00112233-4455-6677-8899-aabbccddeeff');
    expect(lockTokenFromBytes(guidBytes(BATCH[0].lockToken))).toBe(BATCH[0].lockToken);
  });

  it('keeps a sequence number beyond 2^53 exact (partitioned entities use the top 16 bits)', () => {
    const big = (3n << 48n) + 2n ** 53n + 1n;
    const content = hostBindingContent({ ...BATCH[0], sequenceNumber: big });
    expect(longToString(decodeBindingData(content).sequenceNumber)).toBe(big.toString());
  });

  it('decodes a Uint8Array that is a view into a larger buffer (as gRPC may hand it over)', () => {
    const content = hostBindingContent(BATCH[1]);
    const padded = new Uint8Array(content.length + 10);
    padded.set(content, 5);
    expect(decodeBindingData(padded.subarray(5, 5 + content.length))).toMatchObject({ lockToken: BATCH[1].lockToken, deliveryCount: 3 });
  });

  it('refuses content without an AMQP message after the lock token', () => {
    expect(() => decodeBindingData(guidBytes(BATCH[0].lockToken))).toThrow('expected a lock token and an AMQP message, got 16 bytes');
  });
});
