import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AzureServiceBus } from '../../../../src/bus/azure/azure-bus';
import { toOutgoingMessage } from '../../../../src/bus/message-properties';
import { runMover } from '../../../../tools/dead-letter-mover/main';
import { FakeServiceBus } from '../../bus/support/fake-service-bus';
import { MoverFixture } from './mover-fixture';
import { allQueueNames, DEFAULT_QUEUES } from '../../../../src/platform/queue-topology';

/**
 * The mover against the Azure adapter: the real @azure/service-bus SDK over real AMQP, reached
 * through SERVICEBUS_CONNECTION_STRING, against the in-process fake broker (Service Bus cannot
 * run here; the fake has no duplicate detection, so crash recovery is covered on the local bus).
 */
describe('dead-letter-mover on Azure Service Bus (fake AMQP broker)', () => {
  const broker = new FakeServiceBus();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dlm-azure-'));
  let connectionString: string;
  let bus: AzureServiceBus;

  beforeAll(async () => {
    for (const queue of allQueueNames(DEFAULT_QUEUES)) broker.createQueue(queue);
    connectionString = await broker.start();
    bus = new AzureServiceBus({ connectionString, knownQueues: allQueueNames(DEFAULT_QUEUES), minReceiveWaitMs: 300, retry: { maxRetries: 0, timeoutMs: 5_000 } });
    writeFileSync(path.join(dir, 'rules.yaml'), 'rules:\n  - { name: timeouts, match: { errorMessage: timeout }, action: Resubmit }\n');
  });

  afterAll(async () => {
    try {
      await bus?.close();
    } finally {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMover(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir, env: { SERVICEBUS_CONNECTION_STRING: connectionString } });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('lists the dead-lettered messages with their reason, then resubmits the matching one and leaves the other', async () => {
    const changes = [
      { sourceKey: 'az-1', error: 'gateway timeout' },
      { sourceKey: 'az-2', error: 'validation failed' },
    ];
    await bus.send('sbqlow', changes.map((c) => toOutgoingMessage(MoverFixture.message({ sourceKey: c.sourceKey }))));
    const received = await bus.receive('sbqlow', { maxMessages: 2, maxWaitMs: 2_000 });
    for (const [i, m] of received.entries()) {
      await bus.deadLetter(m, { reason: 'PermanentError', description: changes[i].error, propertiesToModify: { ErrorMessage: changes[i].error, ErrorType: 'PermanentError' } });
    }

    const dry = await run(['--queue', 'sbqlow', '--dead-letter', '--rules', 'rules.yaml']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('Source:   sbqlow/$deadletterqueue on Azure Service Bus (connection string)');
    expect(dry.out).toContain('[PermanentError] gateway timeout');
    expect(dry.out).toContain('[PermanentError] validation failed');
    expect(dry.out).not.toContain('fake-key');
    expect(broker.depth('sbqlow', 'deadLetter')).toBe(2);

    const applied = await run(['--queue', 'sbqlow', '--dead-letter', '--rules', 'rules.yaml', '--apply']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('Done: resubmitted 1, removed 0, failed 0.');
    expect(broker.depth('sbqlow', 'deadLetter')).toBe(1);
    const [back] = await bus.receive('sbqlow', { maxMessages: 5, maxWaitMs: 2_000 });
    expect(back.messageId).toBe(`${received[0].messageId}:r:sbqlow.dl:${received[0].sequenceNumber}`);
    expect(back.deliveryCount).toBe(1);
    expect(back.applicationProperties).toMatchObject({ SourceKey: 'az-1', ResubmittedFrom: `sbqlow/$deadletterqueue#${received[0].sequenceNumber}` });
    expect(back.applicationProperties).not.toHaveProperty('ErrorMessage');
    expect(back.applicationProperties).not.toHaveProperty('DeadLetterReason');
    await bus.complete(back);
  });
});
