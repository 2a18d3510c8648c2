import { AzureServiceBus } from '../../../src/bus/azure/azure-bus';
import { isBusError } from '../../../src/bus/message-bus';
import { ServiceBusService } from '../../../src/bus/service-bus-service';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, deserializeQueueMessage } from '../../../src/model/queue-message';
import { runMessageBusContract } from '../../contract/message-bus.contract';
import { FakeServiceBus } from './support/fake-service-bus';
import { DEFAULT_QUEUES, allQueueNames } from '../../../src/platform/queue-topology';

/**
 * The Azure adapter driven through the real @azure/service-bus SDK over real AMQP, against the
 * in-process fake broker (Service Bus cannot run here). Each test uses its own queue.
 */
const QUEUES = ['roundtrip', 'abandon', 'deadletter', 'settled', 'renew', 'peek', 'counts', 'large', 'batch', 'scheduled', ...allQueueNames(DEFAULT_QUEUES)];

const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');

describe('AzureServiceBus over AMQP (fake broker)', () => {
  const broker = new FakeServiceBus();
  let bus: AzureServiceBus;

  beforeAll(async () => {
    for (const queue of QUEUES) broker.createQueue(queue);
    const connectionString = await broker.start();
    bus = new AzureServiceBus({ connectionString, knownQueues: QUEUES, minReceiveWaitMs: 300, retry: { maxRetries: 0, timeoutMs: 5_000 } });
  });

  afterAll(async () => {
    try {
      await bus?.close();
    } finally {
      await broker.stop();
    }
  });

  it('sends and receives with body, properties, sequence number and first delivery = 1; complete removes it', async () => {
    await bus.send('roundtrip', [
      { body: '{"n":1}', messageId: 'm-1', subject: 'job-a', correlationId: 'c-1', contentType: 'application/json', applicationProperties: { JobName: 'job-a', N: 1 } },
      { body: new Uint8Array([1, 2, 3]), messageId: 'm-2' },
    ]);
    const received = await bus.receive('roundtrip', { maxMessages: 2, maxWaitMs: 2_000 });
    expect(received.map((m) => m.messageId)).toEqual(['m-1', 'm-2']);
    const [first, second] = received;
    expect(text(first.body)).toBe('{"n":1}');
    expect([...second.body]).toEqual([1, 2, 3]);
    expect(first).toMatchObject({ subject: 'job-a', correlationId: 'c-1', contentType: 'application/json', deliveryCount: 1, queue: 'roundtrip' });
    expect(first.applicationProperties).toEqual({ JobName: 'job-a', N: 1 });
    expect(BigInt(second.sequenceNumber)).toBeGreaterThan(BigInt(first.sequenceNumber));
    expect(first.lockToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.lockedUntil.getTime()).toBeGreaterThan(Date.now());
    await bus.complete(first);
    await bus.complete(second);
    expect(broker.depth('roundtrip')).toBe(0);
    expect(await bus.receive('roundtrip', { maxWaitMs: 0 })).toEqual([]);
  });

  it('abandon sets properties and redelivers with the delivery counted', async () => {
    await bus.send('abandon', [{ body: 'a', messageId: 'ab-1', applicationProperties: { JobName: 'j' } }]);
    const [first] = await bus.receive('abandon', { maxWaitMs: 2_000 });
    await bus.abandon(first, { ErrorMessage: 'boom', ErrorType: 'TransientError' });
    const [again] = await bus.receive('abandon', { maxWaitMs: 2_000 });
    expect(again.deliveryCount).toBe(2);
    expect(again.applicationProperties).toEqual({ JobName: 'j', ErrorMessage: 'boom', ErrorType: 'TransientError' });
    expect(again.lockToken).not.toBe(first.lockToken);
    await bus.complete(again);
  });

  it('deadLetter moves the message with reason, description and properties to the dead-letter subqueue', async () => {
    await bus.send('deadletter', [{ body: 'd', messageId: 'dl-1' }]);
    const [message] = await bus.receive('deadletter', { maxWaitMs: 2_000 });
    await bus.deadLetter(message, { reason: 'Permanent', description: 'validation failed', propertiesToModify: { ErrorType: 'PermanentError' } });
    expect(await bus.receive('deadletter', { maxWaitMs: 0 })).toEqual([]);
    const [dead] = await bus.receive('deadletter', { subQueue: 'deadLetter', maxWaitMs: 2_000 });
    expect(dead).toMatchObject({
      messageId: 'dl-1',
      subQueue: 'deadLetter',
      deadLetterReason: 'Permanent',
      deadLetterErrorDescription: 'validation failed',
      deadLetterSource: 'deadletter',
      applicationProperties: { ErrorType: 'PermanentError' },
    });
    await bus.complete(dead);
    expect(broker.depth('deadletter', 'deadLetter')).toBe(0);
  });

  it('settling twice, or after abandon, fails with LockLost', async () => {
    await bus.send('settled', [{ body: 's' }]);
    const [message] = await bus.receive('settled', { maxWaitMs: 2_000 });
    await bus.complete(message);
    await expect(bus.complete(message)).rejects.toMatchObject({ name: 'BusError', code: 'LockLost' });
    await expect(bus.abandon(message)).rejects.toMatchObject({ code: 'LockLost' });
    await expect(bus.renewLock(message)).rejects.toMatchObject({ code: 'LockLost' });
  });

  it('renewLock extends the lock through the management link', async () => {
    await bus.send('renew', [{ body: 'r' }]);
    const [message] = await bus.receive('renew', { maxWaitMs: 2_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const renewed = await bus.renewLock(message);
    expect(renewed.getTime()).toBeGreaterThan(message.lockedUntil.getTime());
    await bus.complete(message);
  });

  it('peek browses from a sequence number without locking or counting deliveries', async () => {
    await bus.send('peek', [1, 2, 3].map((n) => ({ body: `p${n}`, messageId: `p-${n}` })));
    const all = await bus.peek('peek');
    expect(all.map((m) => m.messageId)).toEqual(['p-1', 'p-2', 'p-3']);
    expect(all.map((m) => m.deliveryCount)).toEqual([0, 0, 0]);
    const fromSecond = await bus.peek('peek', { fromSequenceNumber: all[1].sequenceNumber, maxMessages: 1 });
    expect(fromSecond.map((m) => m.messageId)).toEqual(['p-2']);
    // Peeking again from the start is not affected by the previous peek (the SDK alone would continue after it).
    expect((await bus.peek('peek', { maxMessages: 1 })).map((m) => m.messageId)).toEqual(['p-1']);
    const received = await bus.receive('peek', { maxMessages: 3, maxWaitMs: 2_000 });
    expect(received.map((m) => m.deliveryCount)).toEqual([1, 1, 1]);
    await Promise.all(received.map((m) => bus.complete(m)));
  });

  it('counts active, scheduled and dead-lettered messages (emulator: by peeking)', async () => {
    const later = new Date(Date.now() + 3_600_000);
    await bus.send('counts', [{ body: 'a1' }, { body: 'a2' }, { body: 's1', scheduledEnqueueTime: later }, { body: 'd1', messageId: 'to-dlq' }]);
    const received = await bus.receive('counts', { maxMessages: 3, maxWaitMs: 2_000 });
    expect(received).toHaveLength(3);
    const toDeadLetter = received.find((m) => m.messageId === 'to-dlq');
    if (!toDeadLetter) throw new Error('to-dlq not received');
    await bus.deadLetter(toDeadLetter, { reason: 'test' });
    await Promise.all(received.filter((m) => m !== toDeadLetter).map((m) => bus.abandon(m)));
    expect(await bus.counts('counts')).toEqual({ active: 2, scheduled: 1, deadLetter: 1 });
    const scheduled = (await bus.peek('counts')).find((m) => text(m.body) === 's1');
    expect(scheduled?.scheduledEnqueueTime?.getTime()).toBe(later.getTime());
  });

  it('a message over the broker limit is MessageTooLarge and nothing is sent; more than a batch is sent in batches', async () => {
    const failure = bus.send('large', [{ body: 'small' }, { body: 'x'.repeat(300_000), messageId: 'huge' }]);
    await expect(failure).rejects.toMatchObject({ name: 'BusError', code: 'MessageTooLarge' });
    await expect(failure).rejects.toThrow(/^send on queue 'large' failed: message 1 \(messageId huge\) with a body of 300000 bytes exceeds the limit of 262144 bytes$/);
    expect(broker.depth('large')).toBe(0);
    await bus.send('large', Array.from({ length: 5 }, (_, i) => ({ body: 'y'.repeat(100_000), messageId: `big-${i}` })));
    expect(broker.depth('large')).toBe(5);
  });

  it('an unknown queue is QueueNotFound for send, receive and peek', async () => {
    for (const attempt of [() => bus.send('no-such-queue', [{ body: 'x' }]), () => bus.receive('no-such-queue'), () => bus.peek('no-such-queue')]) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBusError(err, 'QueueNotFound')).toBe(true);
    }
  });

  it('createBatch and sendBatch send what the batch holds; listQueues gives the configured names', async () => {
    const batch = await bus.createBatch('batch');
    expect(batch.maxSizeInBytes).toBe(262_144);
    for (let i = 0; i < 10; i += 1) expect(batch.tryAdd({ body: `b${i}`, messageId: `b-${i}` })).toBe(true);
    await bus.sendBatch(batch);
    expect(broker.depth('batch')).toBe(10);
    expect(await bus.listQueues()).toEqual([...QUEUES].sort());
  });

  it('ServiceBusService batches 450 messages into 200 + 200 + 50 and every one arrives', async () => {
    const service = new ServiceBusService({ bus, queues: DEFAULT_QUEUES });
    for (let i = 0; i < 450; i += 1) {
      const message = createQueueMessage({
        jobName: 'crm-accounts',
        action: JobActionType.NewUpdate,
        sourceKey: `ACC-${i}`,
        targetKey: { No: `C-${i}` },
        changeTracker: String(i),
        fields: { Name: `Account ${i}` },
      });
      await service.addMessageOrSend(message, 'low');
    }
    expect(broker.depth('sbqlow')).toBe(400);
    await service.flushBatch();
    expect(broker.depth('sbqlow')).toBe(450);
    expect(service.sentCounts()).toEqual({ sbqlow: 450 });
    const [first] = await bus.peek('sbqlow', { maxMessages: 1 });
    expect(deserializeQueueMessage(first.body).sourceKey).toBe('ACC-0');
    expect(first.applicationProperties).toMatchObject({ JobName: 'crm-accounts', SourceKey: 'ACC-0', ChangeTracker: '0' });
  });

  it('a closed bus refuses work', async () => {
    const closed = new AzureServiceBus({ connectionString: 'Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;UseDevelopmentEmulator=true' });
    await closed.close();
    await expect(closed.send('roundtrip', [{ body: 'x' }])).rejects.toThrow('send failed: the bus is closed');
  });
});

/**
 * The shared contract through the SDK and the fake broker. Time-dependent cases are skipped here
 * (they would wait in real time; the fake implements them, the real namespace run covers them).
 */
runMessageBusContract(
  'AzureServiceBus over AMQP (fake broker)',
  async () => {
    const broker = new FakeServiceBus();
    const connectionString = await broker.start();
    const knownQueues: string[] = [];
    const bus = new AzureServiceBus({ connectionString, knownQueues, minReceiveWaitMs: 300, retry: { maxRetries: 0, timeoutMs: 5_000 } });
    return {
      bus,
      queue: async (suffix, options) => {
        const name = `contract-${knownQueues.length + 1}-${suffix}`;
        broker.createQueue(name, options);
        knownQueues.push(name);
        return name;
      },
      cleanup: async () => {
        try {
          await bus.close();
        } finally {
          await broker.stop();
        }
      },
    };
  },
  { time: 'skip' },
);
