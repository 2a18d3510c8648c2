import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { messageIdFor } from '../../../src/bus/message-properties';
import { ServiceBusService } from '../../../src/bus/service-bus-service';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, deserializeQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import { DEFAULT_QUEUES, allQueueNames } from '../../../src/platform/queue-topology';

/** ServiceBusService on the real local bus (SQLite): batching, size limit, duplicate detection. */
function change(i: number, notes = ''): QueueMessage {
  return createQueueMessage({
    jobName: 'crm-accounts',
    action: JobActionType.NewUpdate,
    sourceKey: `ACC-${i}`,
    targetKey: { No: `C-${i}` },
    changeTracker: `2024-05-01T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`,
    fields: notes ? { Name: `Account ${i}`, Notes: notes } : { Name: `Account ${i}` },
  });
}

describe('ServiceBusService on the local bus', () => {
  let dataDir: string;
  let bus: LocalBus;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-sbs-'));
    bus = await LocalBus.open({ dataDir, queues: allQueueNames(DEFAULT_QUEUES) });
  });

  afterAll(async () => {
    await bus?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends 450 changes in batches of 200 and the rest on flush, in order, with the contract properties', async () => {
    const service = new ServiceBusService({ bus, queues: DEFAULT_QUEUES });
    for (let i = 0; i < 450; i += 1) await service.addMessageOrSend(change(i), 'normal');
    expect((await bus.counts('sbqnormal')).active).toBe(400);
    await service.flushBatch();
    expect(await bus.counts('sbqnormal')).toEqual({ active: 450, scheduled: 0, deadLetter: 0 });
    expect(service.sentCounts()).toEqual({ sbqnormal: 450 });
    const peeked = await bus.peek('sbqnormal', { maxMessages: 450 });
    expect(peeked.map((m) => deserializeQueueMessage(m.body).sourceKey)).toEqual(Array.from({ length: 450 }, (_, i) => `ACC-${i}`));
    expect(peeked[7]).toMatchObject({
      messageId: messageIdFor(change(7)),
      subject: 'crm-accounts',
      contentType: 'application/json',
      applicationProperties: { JobName: 'crm-accounts', SourceKey: 'ACC-7', ChangeTracker: '2024-05-01T10:00:07.000Z' },
    });
    expect(peeked[7].expiresAt.getTime() - peeked[7].enqueuedTime.getTime()).toBe(14 * 24 * 60 * 60 * 1000);
  });

  it('a change detected again (a rerun after a broken-off job) is dropped by duplicate detection', async () => {
    const service = new ServiceBusService({ bus, queues: DEFAULT_QUEUES });
    for (const i of [1, 2, 3]) await service.addMessageOrSend(change(1000 + i), 'high');
    await service.flushBatch();
    for (const i of [2, 3, 4]) await service.addMessageOrSend({ ...change(1000 + i), correlationId: `rerun-${i}` }, 'high');
    await service.flushBatch();
    const keys = (await bus.peek('sbqhigh')).map((m) => deserializeQueueMessage(m.body).sourceKey);
    expect(keys).toEqual(['ACC-1001', 'ACC-1002', 'ACC-1003', 'ACC-1004']);
  });

  it('a change too large for the queue fails permanently and the batch around it still goes out', async () => {
    const service = new ServiceBusService({ bus, queues: DEFAULT_QUEUES });
    await service.addMessageOrSend(change(2001), 'low');
    const huge = change(2002, 'n'.repeat(300 * 1024));
    await expect(service.addMessageOrSend(huge, 'low')).rejects.toMatchObject({
      name: 'PermanentError',
      message: expect.stringMatching(/^message of job 'crm-accounts' for source key 'ACC-2002' is too large for queue 'sbqlow': its body is \d+ bytes, over the queue's size limit of \d+ bytes$/),
    });
    await service.addMessageOrSend(change(2003), 'low');
    await service.flushBatch();
    const keys = (await bus.peek('sbqlow')).map((m) => deserializeQueueMessage(m.body).sourceKey);
    expect(keys).toEqual(['ACC-2001', 'ACC-2003']);
  });

  it('sendMessage puts one message on a side queue with error properties', async () => {
    const service = new ServiceBusService({ bus, queues: DEFAULT_QUEUES });
    await service.sendMessage('sbqtransitivenormal', change(3001), { ErrorMessage: 'parent missing', ErrorType: 'TransitiveError', ErrorAt: '2024-05-01T12:00:00.000Z' });
    const [parked] = await bus.peek('sbqtransitivenormal');
    expect(parked.applicationProperties).toEqual({
      JobName: 'crm-accounts',
      SourceKey: 'ACC-3001',
      ChangeTracker: '2024-05-01T10:50:01.000Z',
      ErrorMessage: 'parent missing',
      ErrorType: 'TransitiveError',
      ErrorAt: '2024-05-01T12:00:00.000Z',
    });
    expect(service.sentCounts()).toEqual({ sbqtransitivenormal: 1 });
  });
});
