import { randomUUID } from 'node:crypto';
import { InvocationContext } from '@azure/functions';
import { processHighQueueItems } from '../../../functions/ProcessHighQueueItems';
import { processNormalQueueItems } from '../../../functions/ProcessNormalQueueItems';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import type { BusMessage } from '../../../src/bus/message-bus';
import { toOutgoingMessage } from '../../../src/bus/message-properties';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';
import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import { processQueueItems } from '../../../functions/support/queue-trigger';
import { FakeClock } from '../../support/fake-clock';
import { bindHostMessage, bindHostMessages, hostBindingContent, type HostMessage, modelBindingData, useSettlementEndpoint } from '../../unit/functions/support/sdk-binding';
import { startFakeSettlementHost } from './support/fake-settlement-host';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/** The message as the host would deliver it: what detection put on the bus, with a fresh lock. */
function delivered(message: BusMessage, lockToken = randomUUID(), deliveryCount = 1): HostMessage {
  return {
    body: Buffer.from(message.body).toString('utf8'),
    messageId: message.messageId,
    subject: message.subject,
    correlationId: message.correlationId,
    contentType: message.contentType,
    applicationProperties: message.applicationProperties as Record<string, string>,
    deliveryCount,
    enqueuedTime: message.enqueuedTime,
    sequenceNumber: Number(message.sequenceNumber),
    timeToLiveMs: message.expiresAt.getTime() - message.enqueuedTime.getTime(),
    lockToken,
  };
}

function invocation(functionName: string) {
  const logs: string[] = [];
  const context = new InvocationContext({ functionName, logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });
  return { context, logs };
}

/**
 * The Service Bus batch triggers end to end below the host: binding data in the host's byte
 * layout decoded by our factory, processed by a real runtime (Azurite, local bus, SQLite),
 * settled through the extension's real gRPC actions against a fake host Settlement service.
 */
describe('Service Bus triggers with SDK binding and explicit settlement', () => {
  let f: SyncFixture;
  let host: Awaited<ReturnType<typeof startFakeSettlementHost>>;
  let restoreArgs: () => void;
  beforeAll(async () => {
    f = await createSyncFixture();
    host = await startFakeSettlementHost();
    restoreArgs = useSettlementEndpoint(host.port);
    setRuntimeFactory(async () => f.runtime);
  });
  afterAll(async () => {
    restoreArgs();
    await host.close();
    await f.close();
  });

  it('applies a detected change and completes it; a second settlement of the same lock is refused', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('S-1', 'Acme', ' Berlin ', '2026-01-01T10:00:00.000Z');
    await f.runtime.detection.execute();
    const [detected] = await f.runtime.bus.peek('sbqhigh');
    const message = delivered(detected);
    const { context, logs } = invocation('ProcessHighQueueItems');

    await processHighQueueItems(bindHostMessage(message), context);

    // The process's first invocation asks once whether the host renews locks (it does).
    expect(host.settled).toEqual([
      { action: 'renewMessageLock', lockToken: message.lockToken },
      { action: 'complete', lockToken: message.lockToken },
    ]);
    expect(f.erp.prepare('SELECT name, city FROM customers WHERE crm_id = ?').get('S-1')).toEqual({ name: 'ACME', city: 'Berlin' });
    expect(logs).toEqual(['information: 1 messages: 1 Success/completed']);

    await expect(processHighQueueItems(bindHostMessage(message), invocation('ProcessHighQueueItems').context)).rejects.toThrow(
      `none of the 1 messages could be settled: Service Bus settlement: Complete of lock ${message.lockToken}: the lock is lost (settled, expired, or its invocation returned) (FAILED_PRECONDITION): 9 FAILED_PRECONDITION: LockToken ${message.lockToken} not found.`,
    );
    // A failed complete is not retried as an abandon: the broker redelivers after the lock expires.
    expect(host.refused).toEqual([`complete ${message.lockToken}`]);
    expect(host.settled).toHaveLength(2);
  });

  it('applies a batch of 3 detected changes and completes each through its own lock', async () => {
    const insert = f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
    ['B-1', 'B-2', 'B-3'].forEach((id, i) => insert.run(id, `Batch ${i}`, 'Hamburg', `2026-01-02T10:00:0${i}.000Z`));
    // Not execute(): the job already ran in this schedule window (first test).
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    const detected = (await f.runtime.bus.peek('sbqhigh', { maxMessages: 100 })).filter((m) => /B-\d/.test(String(m.applicationProperties.SourceKey)));
    expect(detected).toHaveLength(3);
    // The second one on its third delivery (header delivery_count 3, as the host sends it).
    const messages = detected.map((m, i) => delivered(m, randomUUID(), i === 1 ? 3 : 1));
    const { context, logs } = invocation('ProcessHighQueueItems');

    await processHighQueueItems(bindHostMessages(messages), context);

    const settled = host.settled.filter((s) => messages.some((m) => m.lockToken === s.lockToken));
    expect(settled.map((s) => s.action)).toEqual(['complete', 'complete', 'complete']);
    expect(new Set(settled.map((s) => s.lockToken))).toEqual(new Set(messages.map((m) => m.lockToken)));
    expect(f.erp.prepare("SELECT crm_id FROM customers WHERE crm_id LIKE 'B-%' ORDER BY crm_id").all()).toEqual([{ crm_id: 'B-1' }, { crm_id: 'B-2' }, { crm_id: 'B-3' }]);
    expect(logs).toEqual(['information: 3 messages: 3 Success/completed']);
  });

  it('dead-letters a message of an unknown job with reason, description and error properties', async () => {
    const queueMessage = createQueueMessage({ jobName: 'nope', action: JobActionType.NewUpdate, sourceKey: 'X-1', targetKey: { id: 'X-1' }, changeTracker: '1', fields: {} });
    const outgoing = toOutgoingMessage(queueMessage);
    const message: HostMessage = {
      body: String(outgoing.body),
      messageId: outgoing.messageId ?? 'm',
      contentType: outgoing.contentType,
      applicationProperties: outgoing.applicationProperties as Record<string, string>,
      deliveryCount: 1,
      enqueuedTime: new Date('2026-03-01T08:00:00Z'),
      sequenceNumber: 7,
      lockToken: randomUUID(),
    };
    const { context, logs } = invocation('ProcessNormalQueueItems');

    await processNormalQueueItems(bindHostMessage(message), context);

    const settlement = host.settled.find((s) => s.lockToken === message.lockToken);
    expect(settlement).toMatchObject({
      action: 'deadletter',
      reason: 'PermanentError',
      description: 'unknown job "nope"',
      properties: { ErrorMessage: 'unknown job "nope"', ErrorType: 'PermanentError', ErrorAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) },
    });
    expect(logs).toContain(`warning: message ${message.messageId} (job unknown): Failed, deadLettered: unknown job "nope"`);
  });

  it('holds the batch while the runtime cannot be created, renewing its lock, then abandons it with error properties and fails', async () => {
    const clock = new FakeClock();
    setRuntimeFactory(() => Promise.reject(new Error('storage unreachable')));
    try {
      const message: HostMessage = { body: '{}', messageId: 'm-low', deliveryCount: 1, enqueuedTime: new Date(), sequenceNumber: 8, lockToken: randomUUID() };
      let finished = false;
      const running = processQueueItems('low', clock)(bindHostMessage(message), invocation('ProcessLowQueueItems').context).finally(() => (finished = true));
      const outcome = running.then(() => 'resolved', (err: Error) => err.message);
      // Fake time a minute at a time, real time in between for the gRPC round trips.
      while (!finished) {
        await clock.advance(60_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await outcome).toBe('storage unreachable');
      const calls = host.settled.filter((s) => s.lockToken === message.lockToken);
      expect(calls.filter((s) => s.action === 'renewMessageLock').length).toBeGreaterThanOrEqual(29);
      expect(calls.at(-1)).toMatchObject({ action: 'abandon', properties: { ErrorMessage: 'storage unreachable', ErrorType: 'Error' } });
    } finally {
      setRuntimeFactory(async () => f.runtime);
    }
  });

  it('dead-letters an undecodable message alone through the host, with reason and description, and applies the rest', async () => {
    const insert = f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
    insert.run('U-1', 'Undecodable neighbour', 'Bremen', '2026-01-03T10:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    const detected = (await f.runtime.bus.peek('sbqhigh', { maxMessages: 100 })).find((m) => m.applicationProperties.SourceKey === 'U-1');
    const good = delivered(detected!);
    const bad = { ...good, messageId: 'm-cut', lockToken: randomUUID() };
    const content = hostBindingContent(bad);
    const data = [{ ...modelBindingData(bad), content: content.subarray(0, content.length - 30) }, modelBindingData(good)];
    const input = ResourceFactoryResolver.getInstance().createClient('AzureServiceBusReceivedMessage', data);
    const { context, logs } = invocation('ProcessHighQueueItems');

    await processHighQueueItems(input, context);

    expect(host.settled.find((s) => s.lockToken === bad.lockToken)).toMatchObject({
      action: 'deadletter',
      reason: 'PermanentError',
      description: expect.stringMatching(/^Service Bus binding data of message 1 of 2 cannot be decoded \(\d+ bytes\): /),
      properties: { ErrorType: 'PermanentError' },
    });
    expect(host.settled.find((s) => s.lockToken === good.lockToken)).toMatchObject({ action: 'complete' });
    expect(f.erp.prepare('SELECT city FROM customers WHERE crm_id = ?').get('U-1')).toEqual({ city: 'Bremen' });
    expect(logs.at(-1)).toBe('information: 1 messages: 1 Success/completed');
  });

  it('refuses a trigger input that is not the SDK binding', async () => {
    await expect(processHighQueueItems({ body: 'x' }, invocation('ProcessHighQueueItems').context)).rejects.toThrow(
      "ProcessHighQueueItems: expected the Service Bus SDK binding's { messages, actions }",
    );
  });
});
