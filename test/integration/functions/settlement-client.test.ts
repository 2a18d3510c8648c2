import { randomUUID } from 'node:crypto';
import { InvocationContext } from '@azure/functions';
import { processQueueItems } from '../../../functions/support/queue-trigger';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { GrpcSettlementClient, RenewalUnsupportedError } from '../../../functions/support/settlement-client';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import type { BatchSettlement, ReceivedItem } from '../../../src/process/received-item';
import type { Runtime } from '../../../src/runtime/runtime';
import { bindHostMessages, type HostMessage, useSettlementEndpoint } from '../../unit/functions/support/sdk-binding';
import { BROKER_REFUSES, startFakeSettlementHost } from './support/fake-settlement-host';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

function hostMessages(count: number): HostMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    body: JSON.stringify({ version: 1, jobName: 'crm-accounts', sourceKey: `R-${i}` }),
    messageId: `r-${i}`,
    deliveryCount: 1,
    enqueuedTime: new Date(),
    sequenceNumber: 500 + i,
    lockToken: randomUUID(),
    lockedUntil: new Date(Date.now() + 60_000),
  }));
}

/** A processor that completes what it is given, in chunks as asked, and records the chunk sizes. */
function completingRuntime() {
  const chunks: number[] = [];
  const executeBatch = async (items: readonly ReceivedItem[], _queue: string, settlement: BatchSettlement): Promise<ProcessResult[]> => {
    chunks.push(items.length);
    const errors = await (settlement.completeMany?.(items) ?? Promise.resolve([]));
    return errors.map((err): ProcessResult => ({ outcome: 'Success', disposition: 'completed', ...(err ? { settleError: String(err) } : {}) }));
  };
  return { runtime: { settings: { queues: { work: { high: 'sbqhigh' } } }, processor: { executeBatch }, init: { ensureInitialized: async () => ({}) } } as unknown as Runtime, chunks };
}

function invocation() {
  const logs: string[] = [];
  return { context: new InvocationContext({ functionName: 'ProcessHighQueueItems', logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) }), logs };
}

/** Our client of the host's Settlement service against a gRPC server speaking the host's contract. */
describe('the settlement client against the host contract', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = useSettlementEndpoint(1); // the binding's shared client is replaced below
  });
  afterAll(() => restore());

  it('learns from the first UNIMPLEMENTED answer that the host has no RenewMessageLock, and never asks again', async () => {
    const host = await startFakeSettlementHost({ renewal: 'unimplemented' });
    const client = new GrpcSettlementClient(`127.0.0.1:${host.port}`);
    try {
      expect(client.renewalSupport).toBe('unknown');
      const token = randomUUID();
      await expect(client.renewMessageLock(token)).rejects.toThrow(new RenewalUnsupportedError('the Functions host has no RenewMessageLock (Service Bus extension before 5.16): message locks cannot be renewed'));
      expect(client.renewalSupport).toBe('unsupported');
      await expect(client.renewMessageLock(token)).rejects.toBeInstanceOf(RenewalUnsupportedError);
      expect(host.calls).toEqual([`renewMessageLock ${token}`]);
      // Settlement still works.
      await client.complete(token);
      expect(host.settled).toEqual([{ action: 'complete', lockToken: token }]);
    } finally {
      client.close();
      await host.close();
    }
  });

  it('on such a host, the batch trigger warns once per process and processes within the locks, in chunks', async () => {
    const host = await startFakeSettlementHost({ renewal: 'unimplemented' });
    const client = new GrpcSettlementClient(`127.0.0.1:${host.port}`);
    const { runtime, chunks } = completingRuntime();
    setRuntimeFactory(async () => runtime);
    try {
      const first = invocation();
      const batch = hostMessages(70);
      await processQueueItems('high')({ ...bindHostMessages(batch), actions: client }, first.context);
      const second = invocation();
      const next = hostMessages(3);
      await processQueueItems('high')({ ...bindHostMessages(next), actions: client }, second.context);

      expect(host.calls.filter((c) => c.startsWith('renewMessageLock'))).toEqual([`renewMessageLock ${batch[0].lockToken}`]);
      expect(first.logs[0]).toBe(
        'warning: the Functions host has no RenewMessageLock (Service Bus extension before 5.16): message locks cannot be renewed; batches are processed in chunks that start only with half a lock left, the rest is released. Update the extension bundle.',
      );
      expect(second.logs.filter((l) => l.includes('RenewMessageLock'))).toEqual([]);
      expect(chunks).toEqual([32, 32, 6, 3]);
      expect(host.settled.filter((s) => s.action === 'complete')).toHaveLength(73);
    } finally {
      client.close();
      await host.close();
    }
  });

  it("keeps the start of the host's answer when the broker refused (UNKNOWN with the .NET exception and its stack)", async () => {
    const host = await startFakeSettlementHost();
    const client = new GrpcSettlementClient(`127.0.0.1:${host.port}`);
    try {
      const err = await client.complete(BROKER_REFUSES).catch((e: Error) => e);
      expect(err).toMatchObject({
        name: 'TransientError',
        message: expect.stringMatching(
          /^Service Bus settlement: Complete of lock 00000000-0000-4000-8000-00000000dead: the broker refused \(UNKNOWN\): 2 UNKNOWN: Azure\.Messaging\.ServiceBus\.ServiceBusException: The lock supplied is invalid\. \(MessageLockLost\)/,
        ),
      });
      expect((err as Error).message.length).toBeLessThan(450);
    } finally {
      client.close();
      await host.close();
    }
  });

  it('names the lock, the call and the status when the host cannot be reached', async () => {
    const host = await startFakeSettlementHost();
    const port = host.port;
    await host.close();
    const client = new GrpcSettlementClient(`127.0.0.1:${port}`, 2_000);
    try {
      await expect(client.complete('lock-x')).rejects.toMatchObject({
        name: 'TransientError',
        message: expect.stringMatching(/^Service Bus settlement: Complete of lock lock-x: the host did not answer \((UNAVAILABLE|DEADLINE_EXCEEDED)\): /),
      });
    } finally {
      client.close();
    }
  });
});
