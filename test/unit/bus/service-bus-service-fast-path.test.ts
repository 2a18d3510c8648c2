import { BusError } from '../../../src/bus/message-bus';
import { messageIdFor, toOutgoingMessage } from '../../../src/bus/message-properties';
import { ServiceBusService } from '../../../src/bus/service-bus-service';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import { encodedSize, InMemorySendBus } from './support/in-memory-send-bus';
import { DEFAULT_QUEUES, allQueueNames } from '../../../src/platform/queue-topology';

/** The synchronous fast path of addMessageOrSend (an open batch with room, nothing queued) next to the serialized one. */
function change(i: number, name = `Account ${i}`): QueueMessage {
  return createQueueMessage({
    jobName: 'crm-accounts',
    action: JobActionType.NewUpdate,
    sourceKey: `ACC-${i}`,
    targetKey: { No: `C-${i}` },
    changeTracker: '2024-05-01T10:00:00.000Z',
    fields: { Name: name },
    correlationId: `corr-${i}`,
    detectedAt: '2024-05-01T10:05:00.000Z',
  });
}

function setup(maxSizeInBytes?: number) {
  const bus = new InMemorySendBus(allQueueNames(DEFAULT_QUEUES), maxSizeInBytes);
  return { bus, service: new ServiceBusService({ bus, queues: DEFAULT_QUEUES, maxMessagesPerBatch: 10 }) };
}

describe('ServiceBusService.addMessageOrSend fast path', () => {
  it('keeps call order when awaited and unawaited calls mix across batch boundaries', async () => {
    const { bus, service } = setup();
    await service.addMessageOrSend(change(0), 'normal');
    const calls: Array<Promise<void>> = [];
    for (let i = 1; i < 35; i++) {
      calls.push(service.addMessageOrSend(change(i), 'normal'));
      if (i % 7 === 0) await calls[calls.length - 1];
    }
    await Promise.all(calls);
    await service.flushBatch();
    expect(bus.sends.map((s) => s.count)).toEqual([10, 10, 10, 5]);
    expect(bus.sent.get('sbqnormal')?.map((m) => m.messageId)).toEqual(Array.from({ length: 35 }, (_, i) => messageIdFor(change(i))));
  });

  it('sends the open batch first when the next message does not fit, also from the fast path', async () => {
    const size = encodedSize(toOutgoingMessage(change(0, 'a'.repeat(300))));
    const { bus, service } = setup(3 * size - 1);
    await service.addMessageOrSend(change(0, 'a'.repeat(300)), 'normal');
    await service.addMessageOrSend(change(1, 'b'.repeat(300)), 'normal');
    await service.addMessageOrSend(change(2, 'c'.repeat(300)), 'normal');
    expect(bus.sends.map((s) => s.count)).toEqual([2]);
    expect(service.pendingCounts()).toEqual({ sbqnormal: 1 });
  });

  it('rejects an unknown priority and a malformed message without throwing synchronously', async () => {
    const { service } = setup();
    await service.addMessageOrSend(change(0), 'normal');
    const malformed = { ...change(1), fields: { bad: 1n } } as unknown as QueueMessage;
    const added = service.addMessageOrSend(malformed, 'normal');
    await expect(added).rejects.toThrow(TypeError);
    await expect(service.addMessageOrSend(change(2), 'urgent' as never)).rejects.toThrow(
      'priority: expected high, normal or low, got "urgent"',
    );
    await service.flushBatch();
    expect(service.sentCounts()).toEqual({ sbqnormal: 1 });
  });

  it('keeps a full batch open when its send fails, with later calls queued behind it', async () => {
    const { bus, service } = setup();
    for (let i = 0; i < 10; i++) await service.addMessageOrSend(change(i), 'normal');
    bus.failNextSend = new BusError('Unavailable', 'down');
    const failing = service.addMessageOrSend(change(10), 'normal');
    const next = service.addMessageOrSend(change(11), 'normal');
    await expect(failing).rejects.toThrow('down');
    await next;
    await service.flushBatch();
    expect(bus.sends.map((s) => s.count)).toEqual([10, 1]);
    expect(bus.sent.get('sbqnormal')?.map((m) => m.messageId)).toEqual(Array.from({ length: 10 }, (_, i) => i).concat(11).map((i) => messageIdFor(change(i))));
  });
});
