import { BusError } from '../../../src/bus/message-bus';
import { messageIdFor, toOutgoingMessage } from '../../../src/bus/message-properties';
import { ServiceBusService } from '../../../src/bus/service-bus-service';
import { errorKind, PermanentError } from '../../../src/platform/errors';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, deserializeQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import { encodedSize, InMemorySendBus } from './support/in-memory-send-bus';
import { DEFAULT_QUEUES, allQueueNames } from '../../../src/platform/queue-topology';

function change(i: number, fields: Record<string, string> = { Name: `Account ${i}` }): QueueMessage {
  return createQueueMessage({
    jobName: 'crm-accounts',
    action: JobActionType.NewUpdate,
    sourceKey: `ACC-${i}`,
    targetKey: { No: `C-${i}` },
    changeTracker: `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}.000Z`,
    fields,
    correlationId: `corr-${i}`,
    detectedAt: '2024-05-01T10:05:00.000Z',
  });
}

function setup(maxSizeInBytes?: number) {
  const bus = new InMemorySendBus(allQueueNames(DEFAULT_QUEUES), maxSizeInBytes);
  return { bus, service: new ServiceBusService({ bus, queues: DEFAULT_QUEUES }) };
}

describe('ServiceBusService.addMessageOrSend', () => {
  it('holds messages in an open batch per priority queue until flushBatch', async () => {
    const { bus, service } = setup();
    await service.addMessageOrSend(change(1), 'high');
    await service.addMessageOrSend(change(2), 'low');
    await service.addMessageOrSend(change(3), 'high');
    expect(bus.sends).toEqual([]);
    expect(service.pendingCounts()).toEqual({ sbqhigh: 2, sbqlow: 1 });
    await service.flushBatch();
    expect(bus.sends).toEqual([
      { queue: 'sbqhigh', count: 2 },
      { queue: 'sbqlow', count: 1 },
    ]);
    expect(bus.sent.get('sbqhigh')?.map((m) => deserializeQueueMessage(m.body).sourceKey)).toEqual(['ACC-1', 'ACC-3']);
    expect(service.sentCounts()).toEqual({ sbqhigh: 2, sbqlow: 1 });
    expect(service.pendingCounts()).toEqual({});
  });

  it('sends a batch when it holds 200 messages; the 201st starts the next batch', async () => {
    const { bus, service } = setup();
    for (let i = 0; i < 450; i += 1) await service.addMessageOrSend(change(i), 'normal');
    expect(bus.sends).toEqual([
      { queue: 'sbqnormal', count: 200 },
      { queue: 'sbqnormal', count: 200 },
    ]);
    await service.flushBatch();
    expect(bus.sends.map((s) => s.count)).toEqual([200, 200, 50]);
    const keys = bus.sent.get('sbqnormal')?.map((m) => deserializeQueueMessage(m.body).sourceKey);
    expect(keys).toEqual(Array.from({ length: 450 }, (_, i) => `ACC-${i}`));
    expect(service.sentCounts()).toEqual({ sbqnormal: 450 });
  });

  it('sends the batch when the next message would not fit, then starts a new batch with it', async () => {
    const one = encodedSize(toOutgoingMessage(change(1)));
    const { bus, service } = setup(one * 3 + 10);
    for (let i = 1; i <= 7; i += 1) await service.addMessageOrSend(change(i), 'high');
    expect(bus.sends).toEqual([
      { queue: 'sbqhigh', count: 3 },
      { queue: 'sbqhigh', count: 3 },
    ]);
    expect(service.pendingCounts()).toEqual({ sbqhigh: 1 });
    await service.flushBatch();
    expect(bus.sent.get('sbqhigh')).toHaveLength(7);
  });

  it('fails with a PermanentError naming job, source key and size for a message over the limit, and drops nothing else', async () => {
    const { bus, service } = setup(2_000);
    await service.addMessageOrSend(change(1), 'high');
    const huge = change(2, { Notes: 'n'.repeat(5_000) });
    const size = Buffer.byteLength(JSON.stringify(huge), 'utf8');
    const failure = service.addMessageOrSend(huge, 'high');
    await expect(failure).rejects.toThrow(
      `message of job 'crm-accounts' for source key 'ACC-2' is too large for queue 'sbqhigh': its body is ${size} bytes, over the queue's size limit of 2000 bytes`,
    );
    await failure.catch((err: unknown) => expect(errorKind(err)).toBe('permanent'));
    await failure.catch((err: unknown) => expect(err).toBeInstanceOf(PermanentError));
    await service.addMessageOrSend(change(3), 'high');
    await service.flushBatch();
    expect(bus.sent.get('sbqhigh')?.map((m) => deserializeQueueMessage(m.body).sourceKey)).toEqual(['ACC-1', 'ACC-3']);
  });

  it('keeps a full batch open when its send fails, and sends it on the next call', async () => {
    const { bus, service } = setup();
    for (let i = 0; i < 200; i += 1) await service.addMessageOrSend(change(i), 'low');
    bus.failNextSend = new BusError('Unavailable', 'broker busy');
    await expect(service.addMessageOrSend(change(200), 'low')).rejects.toThrow('broker busy');
    expect(bus.sends).toEqual([]);
    await service.addMessageOrSend(change(200), 'low');
    expect(bus.sends).toEqual([{ queue: 'sbqlow', count: 200 }]);
    await service.flushBatch();
    expect(bus.sent.get('sbqlow')).toHaveLength(201);
    expect(service.sentCounts()).toEqual({ sbqlow: 201 });
  });

  it('serializes concurrent callers: every message lands exactly once, in call order', async () => {
    const { bus, service } = setup();
    await Promise.all(Array.from({ length: 450 }, (_, i) => service.addMessageOrSend(change(i), 'normal')));
    await service.flushBatch();
    expect(bus.sends.map((s) => s.count)).toEqual([200, 200, 50]);
    expect(bus.sent.get('sbqnormal')?.map((m) => m.messageId)).toEqual(Array.from({ length: 450 }, (_, i) => messageIdFor(change(i))));
  });

  it('flushBatch with nothing open sends nothing', async () => {
    const { bus, service } = setup();
    await service.flushBatch();
    expect(bus.sends).toEqual([]);
  });
});

describe('ServiceBusService.sendMessage', () => {
  it('sends one message now with the standard and the extra properties', async () => {
    const { bus, service } = setup();
    await service.sendMessage('sbqtransitivehigh', change(5), { ErrorMessage: 'parent missing', ErrorType: 'TransitiveError' });
    const [sent] = bus.sent.get('sbqtransitivehigh') ?? [];
    expect(sent.messageId).toBe(messageIdFor(change(5)));
    expect(sent.subject).toBe('crm-accounts');
    expect(sent.applicationProperties).toEqual({
      JobName: 'crm-accounts',
      SourceKey: 'ACC-5',
      ChangeTracker: '2024-05-01T10:00:05.000Z',
      ErrorMessage: 'parent missing',
      ErrorType: 'TransitiveError',
    });
    expect(service.sentCounts()).toEqual({ sbqtransitivehigh: 1 });
  });

  it('turns MessageTooLarge into a PermanentError naming job and source key', async () => {
    const { service } = setup(1_000);
    await expect(service.sendMessage('sbqignored', change(9, { Notes: 'z'.repeat(2_000) }))).rejects.toThrow(
      /^message of job 'crm-accounts' for source key 'ACC-9' is too large for queue 'sbqignored': its body is \d+ bytes, over the queue's size limit$/,
    );
  });

  it('passes other bus errors through (QueueNotFound)', async () => {
    const { service } = setup();
    await expect(service.sendMessage('nope', change(1))).rejects.toMatchObject({ name: 'BusError', code: 'QueueNotFound' });
    expect(service.sentCounts()).toEqual({});
  });
});
