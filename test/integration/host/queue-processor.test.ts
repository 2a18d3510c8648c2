import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { BusMessage } from '../../../src/bus/message-bus';
import { QueueProcessor } from '../../../src/host/queue-processor';
import type { MessageSettler } from '../../../src/process/message-settler';
import type { ProcessQueueMessageService, ProcessResult } from '../../../src/process/process-queue-message-service';
import { silentLogger } from '../../../src/telemetry/logger';

const QUEUE = 'work';
const ids = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(5);
  }
}

/**
 * Stands in for the service to watch the processor's scheduling: it counts messages in flight
 * and batch sizes, waits as `hold` says for each message, then completes the batch on the real bus.
 */
function watchingService(hold: (messageId: string) => Promise<void>) {
  const state = { inFlight: 0, maxInFlight: 0, batches: [] as number[], completed: [] as string[] };
  const service = {
    async executeBatch(items: ReadonlyArray<{ message: BusMessage; settler: MessageSettler }>): Promise<ProcessResult[]> {
      state.inFlight += items.length;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      state.batches.push(items.length);
      try {
        await Promise.all(items.map((item) => hold(item.message.messageId)));
      } finally {
        state.inFlight -= items.length;
      }
      for (const item of items) {
        await item.settler.complete();
        state.completed.push(item.message.messageId);
      }
      return items.map(() => ({ outcome: 'Success', disposition: 'completed', jobName: 'job' }));
    },
  };
  return { state, service: service as unknown as ProcessQueueMessageService };
}

describe('QueueProcessor on the local bus', () => {
  let dataDir: string;
  let bus: LocalBus;
  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-queue-processor-'));
    bus = await LocalBus.open({ dataDir, queues: [QUEUE] });
  });
  afterEach(async () => {
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('processes every message once, in batches, with up to `concurrency` in flight, never more', async () => {
    await bus.send(QUEUE, ids(60).map((messageId) => ({ body: messageId, messageId })));
    const { state, service } = watchingService(() => delay(Math.random() * 3));
    const results: string[] = [];
    const processor = new QueueProcessor({ bus, queue: QUEUE, processor: service, log: silentLogger, concurrency: 4, receiveWaitMs: 50,
      onResult: (result, message) => results.push(`${message.messageId}:${result.outcome}`) });
    processor.start();
    await until(() => state.completed.length === 60);
    await processor.stop();
    expect([...state.completed].sort()).toEqual([...ids(60)].sort());
    expect(results).toHaveLength(60);
    expect(results.every((r) => r.endsWith(':Success'))).toBe(true);
    expect(state.maxInFlight).toBeLessThanOrEqual(4);
    expect(Math.max(...state.batches)).toBeGreaterThan(1);
    expect(await bus.counts(QUEUE)).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('receives the next batch while a batch is still in flight', async () => {
    await bus.send(QUEUE, ids(12).map((messageId) => ({ body: messageId, messageId })));
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const { state, service } = watchingService((id) => (id === 'm0' ? blocked : delay(1)));
    const processor = new QueueProcessor({ bus, queue: QUEUE, processor: service, log: silentLogger, concurrency: 2, maxBatchSize: 1, receiveWaitMs: 50 });
    processor.start();
    await until(() => state.completed.length === 11);
    expect(state.completed).not.toContain('m0');
    expect(processor.busy).toBe(1);
    release();
    await until(() => state.completed.length === 12);
    const idle = processor.whenIdle();
    await idle;
    expect(processor.busy).toBe(0);
    await processor.stop();
  });

  it('receives no batch while the bodies in flight hold `maxBytesInFlight` bytes or more', async () => {
    const body = 'x'.repeat(100_000);
    const run = async (maxBytesInFlight?: number) => {
      const queue = `big${maxBytesInFlight ?? 'default'}`;
      await bus.createQueue(queue);
      await bus.send(queue, ids(20).map((messageId) => ({ body, messageId })));
      const { state, service } = watchingService(() => delay(20));
      const processor = new QueueProcessor({ bus, queue, processor: service, log: silentLogger, concurrency: 20, maxBatchSize: 2, batchWaitMs: 0, receiveWaitMs: 50, maxBytesInFlight });
      processor.start();
      await until(() => state.completed.length === 20);
      await processor.stop();
      expect([...state.completed].sort()).toEqual([...ids(20)].sort());
      return state.maxInFlight;
    };
    // 200 kB in flight is under 250 kB: one more batch of two; 400 kB is not.
    expect(await run(250_000)).toBe(4);
    expect(await run()).toBeGreaterThan(4);
  });
});
