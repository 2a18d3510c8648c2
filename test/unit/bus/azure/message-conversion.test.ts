import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import Long from 'long';
import {
  bodyBytes,
  fromReceivedMessage,
  fromServiceBusMessage,
  longToString,
  toApplicationProperties,
  toServiceBusMessage,
} from '../../../../src/bus/azure/message-conversion';
import { decodeBatch, RealSdkBatches } from './support/real-sdk-batch';

/** A received message as the SDK builds it from an AMQP transfer (fields of ServiceBusReceivedMessage 7.9). */
function sdkReceived(overrides: Partial<Record<keyof ServiceBusReceivedMessage, unknown>> = {}): ServiceBusReceivedMessage {
  return {
    body: Buffer.from('{"jobName":"j"}', 'utf8'),
    messageId: 'a1b2',
    subject: 'crm-accounts',
    correlationId: 'corr-7',
    contentType: 'application/json',
    applicationProperties: { JobName: 'crm-accounts', Attempt: 2, Urgent: false, Missing: null },
    sequenceNumber: Long.fromString('9223372036854775807'),
    deliveryCount: 0,
    enqueuedTimeUtc: new Date('2024-05-01T10:00:00.000Z'),
    expiresAtUtc: new Date('2024-05-15T10:00:00.000Z'),
    lockToken: '5f0c3a1e-0000-4000-8000-000000000001',
    lockedUntilUtc: new Date('2024-05-01T10:01:00.000Z'),
    state: 'active',
    _rawAmqpMessage: { body: undefined, bodyType: 'data' },
    ...overrides,
  } as ServiceBusReceivedMessage;
}

describe('toServiceBusMessage (encoded by the real SDK into AMQP)', () => {
  const batches = new RealSdkBatches();
  afterAll(() => batches.close());

  it('sends a string body as UTF-8 bytes in a data section (not JSON-quoted) with every property', async () => {
    const batch = await batches.create('sbqhigh', 262_144);
    const scheduled = new Date('2030-01-01T00:00:00.000Z');
    const added = batch.tryAddMessage(
      toServiceBusMessage({
        body: '{"name":"Müller"}',
        messageId: 'id-1',
        subject: 'job-a',
        correlationId: 'corr-1',
        contentType: 'application/json',
        timeToLiveMs: 1_209_600_000,
        scheduledEnqueueTime: scheduled,
        applicationProperties: { JobName: 'job-a', Count: 3, Flag: true, Nothing: null },
      }),
    );
    expect(added).toBe(true);
    const [wire] = decodeBatch(batch);
    expect(wire.body).toMatchObject({ typecode: 0x75 });
    expect(Buffer.from((wire.body as { content: Buffer }).content).toString('utf8')).toBe('{"name":"Müller"}');
    expect(wire.message_id).toBe('id-1');
    expect(wire.subject).toBe('job-a');
    expect(wire.correlation_id).toBe('corr-1');
    expect(wire.content_type).toBe('application/json');
    expect(wire.ttl).toBe(1_209_600_000);
    expect(wire.message_annotations).toEqual({ 'x-opt-scheduled-enqueue-time': scheduled });
    expect(wire.application_properties).toEqual({ JobName: 'job-a', Count: 3, Flag: true, Nothing: null });
  });

  it('sends raw bytes as they are, a random message id when none is given, and leaves other unset fields out', async () => {
    const batch = await batches.create('sbqhigh', 262_144);
    expect(batch.tryAddMessage(toServiceBusMessage({ body: new Uint8Array([0, 255, 7]) }))).toBe(true);
    expect(batch.tryAddMessage(toServiceBusMessage({ body: 'second' }))).toBe(true);
    const [first, second] = decodeBatch(batch);
    expect([...(first.body as { content: Buffer }).content]).toEqual([0, 255, 7]);
    expect(first.message_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.message_id).not.toBe(first.message_id);
    expect(first.subject).toBeUndefined();
    expect(first.application_properties).toBeUndefined();
    expect(Buffer.from((second.body as { content: Buffer }).content).toString('utf8')).toBe('second');
  });
});

describe('fromServiceBusMessage / fromReceivedMessage', () => {
  it('converts a received message: bytes, exact 64-bit sequence number, and the current delivery counted', () => {
    const received = fromReceivedMessage(sdkReceived(), { queue: 'sbqnormal' });
    expect(received).toEqual({
      body: new Uint8Array(Buffer.from('{"jobName":"j"}', 'utf8')),
      messageId: 'a1b2',
      subject: 'crm-accounts',
      correlationId: 'corr-7',
      contentType: 'application/json',
      applicationProperties: { JobName: 'crm-accounts', Attempt: 2, Urgent: false, Missing: null },
      sequenceNumber: '9223372036854775807',
      deliveryCount: 1,
      enqueuedTime: new Date('2024-05-01T10:00:00.000Z'),
      expiresAt: new Date('2024-05-15T10:00:00.000Z'),
      lockToken: '5f0c3a1e-0000-4000-8000-000000000001',
      lockedUntil: new Date('2024-05-01T10:01:00.000Z'),
      queue: 'sbqnormal',
    });
  });

  it('a redelivered message (broker count 3) has deliveryCount 4; a peeked one keeps the broker count', () => {
    expect(fromReceivedMessage(sdkReceived({ deliveryCount: 3 }), { queue: 'q' }).deliveryCount).toBe(4);
    expect(fromServiceBusMessage(sdkReceived({ deliveryCount: 3 }), { queue: 'q' }).deliveryCount).toBe(3);
  });

  it('dead-lettered: reason and description as fields (not application properties), source = the queue itself', () => {
    const message = sdkReceived({
      deadLetterReason: 'MaxDeliveryCountExceeded',
      deadLetterErrorDescription: 'Message could not be consumed after 10 delivery attempts.',
      applicationProperties: {
        JobName: 'j',
        DeadLetterReason: 'MaxDeliveryCountExceeded',
        DeadLetterErrorDescription: 'Message could not be consumed after 10 delivery attempts.',
      },
    });
    const received = fromReceivedMessage(message, { queue: 'sbqlow', subQueue: 'deadLetter' });
    expect(received.deadLetterReason).toBe('MaxDeliveryCountExceeded');
    expect(received.deadLetterErrorDescription).toBe('Message could not be consumed after 10 delivery attempts.');
    expect(received.deadLetterSource).toBe('sbqlow');
    expect(received.subQueue).toBe('deadLetter');
    expect(received.applicationProperties).toEqual({ JobName: 'j' });
  });

  it('keeps a forwarded message’s broker-reported dead-letter source', () => {
    const message = sdkReceived({ deadLetterSource: 'other-queue' });
    expect(fromServiceBusMessage(message, { queue: 'sbqlow', subQueue: 'deadLetter' }).deadLetterSource).toBe('other-queue');
    expect(fromServiceBusMessage(sdkReceived(), { queue: 'sbqlow' }).deadLetterSource).toBeUndefined();
  });

  it('carries the scheduled enqueue time and turns a numeric message id into text', () => {
    const at = new Date('2030-01-01T00:00:00.000Z');
    const peeked = fromServiceBusMessage(sdkReceived({ scheduledEnqueueTimeUtc: at, messageId: 42, state: 'scheduled' }), { queue: 'q' });
    expect(peeked.scheduledEnqueueTime).toEqual(at);
    expect(peeked.messageId).toBe('42');
  });

  it('refuses a message without lock token as a received message', () => {
    expect(() => fromReceivedMessage(sdkReceived({ lockToken: undefined }), { queue: 'q' })).toThrow(
      'received message has no lock token (not received in peek-lock mode)',
    );
  });
});

describe('value conversions', () => {
  it('bodyBytes: Buffer as is, a string (AMQP value body of another client) as UTF-8, objects as JSON, none as empty', () => {
    expect([...bodyBytes(Buffer.from([1, 2]))]).toEqual([1, 2]);
    expect(Buffer.from(bodyBytes('héllo')).toString('utf8')).toBe('héllo');
    expect(Buffer.from(bodyBytes({ a: 1 })).toString('utf8')).toBe('{"a":1}');
    expect(bodyBytes(undefined)).toHaveLength(0);
  });

  it('longToString keeps 64-bit values exact', () => {
    expect(longToString(Long.fromString('18014398509481985'))).toBe('18014398509481985');
    expect(longToString(7)).toBe('7');
    expect(longToString(undefined)).toBe('');
  });

  it('toApplicationProperties: dates to ISO text, safe longs to numbers, big longs to text, bytes to base64', () => {
    expect(
      toApplicationProperties({
        When: new Date('2024-01-02T03:04:05.000Z'),
        Small: Long.fromNumber(12),
        Big: Long.fromString('9007199254740993'),
        Bytes: Buffer.from('hi'),
        Text: 's',
        Nested: { a: 1 },
      }),
    ).toEqual({ When: '2024-01-02T03:04:05.000Z', Small: 12, Big: '9007199254740993', Bytes: 'aGk=', Text: 's', Nested: '{"a":1}' });
  });
});
