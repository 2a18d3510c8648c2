import { processQueueItems } from '../../../functions/support/queue-trigger';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { decodePropertiesToModify } from '../../../functions/support/service-bus-settler';
import { STARTUP_HOLD_MS } from '../../../functions/support/startup-hold';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import type { BatchSettlement, ReceivedItem } from '../../../src/process/received-item';
import type { Runtime } from '../../../src/runtime/runtime';
import { FakeClock } from '../../support/fake-clock';
import { FakeServiceBusHost } from './support/fake-service-bus-host';
import { useSettlementEndpoint } from './support/sdk-binding';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

const BODY = (i: number) => JSON.stringify({ version: 1, jobName: 'crm-accounts', sourceKey: `A-${i}` });

/**
 * A processor that completes every message after `workMs` of (fake) time, and records the delivery
 * count it saw; its configuration cannot be read until `configDownMs` after the start.
 */
function runtimeOn(clock: FakeClock, workMs = 0, configDownMs = 0) {
  const configBackAt = clock.now().getTime() + configDownMs;
  const deliveries: number[] = [];
  const batches: number[] = [];
  const executeBatch = async (items: readonly ReceivedItem[], _queue: string, settlement: BatchSettlement): Promise<ProcessResult[]> => {
    batches.push(items.length);
    items.forEach((item) => deliveries.push(item.message.deliveryCount));
    if (workMs > 0) await clock.sleep(workMs);
    const errors = await (settlement.completeMany?.(items) ?? Promise.resolve([]));
    return errors.map((err): ProcessResult => ({ outcome: 'Success', disposition: 'completed', jobName: 'crm-accounts', ...(err ? { settleError: String(err) } : {}) }));
  };
  const ensureInitialized = async () => {
    if (clock.now().getTime() < configBackAt) throw new Error('table query on "jobs" failed: 403 AuthorizationPermissionMismatch');
    return {};
  };
  const runtime = { settings: { queues: { work: { high: 'sbqhigh', normal: 'sbqnormal', low: 'sbqlow' } } }, processor: { executeBatch }, init: { ensureInitialized } } as unknown as Runtime;
  return { runtime, deliveries, batches };
}

/** The runtime cannot be created until `outageMs` after the start (a storage outage at cold start). */
function outage(clock: FakeClock, outageMs: number, runtime: Runtime): void {
  const end = clock.now().getTime() + outageMs;
  setRuntimeFactory(async () => {
    if (clock.now().getTime() < end) throw new Error('storage unreachable: 503 Service Unavailable');
    return runtime;
  });
}

/** Runs the host's loop, moving fake time a second at a time, until the queue is drained or `limitMs` passed. */
async function drive(host: FakeServiceBusHost, clock: FakeClock, handler: ReturnType<typeof processQueueItems>, limitMs: number): Promise<void> {
  let finished = false;
  const drained = () => host.count('available') + host.count('locked') === 0;
  const loop = host.run(handler, 'ProcessHighQueueItems', drained, limitMs).finally(() => (finished = true));
  while (!finished) await clock.advance(1000);
  await loop;
}

describe("the batch trigger under the host's batch loop (fake clock; lock 60 s, maxDeliveryCount 10)", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = useSettlementEndpoint(1); // the binding's own client is replaced by the host's actions
  });
  afterAll(() => restore());

  it('the loop receives again at once after a failed invocation: failing at once dead-letters the whole backlog within seconds', async () => {
    const clock = new FakeClock();
    const host = new FakeServiceBusHost({ clock });
    host.send(300, BODY);

    await drive(host, clock, async () => Promise.reject(new Error('storage unreachable')), 60 * 60_000);

    expect(host.count('deadLettered')).toBe(300);
    expect(new Set(host.store.map((m) => m.deadLetterReason))).toEqual(new Set(['MaxDeliveryCountExceeded']));
    expect(host.invocations).toBe(20); // ten deliveries of two batches (256 + 44)
    expect(clock.now().getTime() - new Date('2026-01-01T00:00:00Z').getTime()).toBeLessThanOrEqual(2_000);
  });

  it('a 10-minute storage outage at cold start dead-letters nothing: the batch is held, locks renewed, and processed on its first delivery', async () => {
    const clock = new FakeClock();
    const host = new FakeServiceBusHost({ clock });
    host.send(300, BODY);
    const { runtime, deliveries, batches } = runtimeOn(clock);
    outage(clock, 10 * 60_000, runtime);

    await drive(host, clock, processQueueItems('high', clock), 60 * 60_000);

    expect(host.count('deadLettered')).toBe(0);
    expect(host.count('completed')).toBe(300);
    expect(batches).toEqual([256, 44]);
    expect(new Set(deliveries)).toEqual(new Set([1]));
    expect(host.calls.filter((c) => c.action === 'abandon')).toEqual([]);
    // Held about ten minutes, each lock renewed every 30 s meanwhile.
    expect(host.calls.filter((c) => c.action === 'renewMessageLock' && c.lockToken === host.calls[0].lockToken).length).toBeGreaterThanOrEqual(19);
    const retries = host.logs.filter((l) => l.startsWith('warning: runtime not available (attempt'));
    expect(retries[0]).toBe('warning: runtime not available (attempt 1): storage unreachable: 503 Service Unavailable; 256 messages held, next attempt in 5 s');
    expect(retries.length).toBeLessThanOrEqual(15);
  });

  it('configuration unreadable for 10 minutes (role assignments propagating) once the runtime exists: held the same way, nothing dead-lettered', async () => {
    const clock = new FakeClock();
    const host = new FakeServiceBusHost({ clock });
    host.send(50, BODY);
    const { runtime, deliveries } = runtimeOn(clock, 0, 10 * 60_000);
    setRuntimeFactory(async () => runtime);

    await drive(host, clock, processQueueItems('high', clock), 60 * 60_000);

    expect(host.count('completed')).toBe(50);
    expect(host.count('deadLettered')).toBe(0);
    expect(new Set(deliveries)).toEqual(new Set([1]));
    expect(host.logs[0]).toBe('warning: runtime not available (attempt 1): table query on "jobs" failed: 403 AuthorizationPermissionMismatch; 50 messages held, next attempt in 5 s');
  });

  it('an outage longer than the hold costs one delivery per hold: abandoned with error properties after 15 minutes, processed once the storage is back', async () => {
    const clock = new FakeClock();
    const host = new FakeServiceBusHost({ clock });
    host.send(10, BODY);
    const { runtime, deliveries } = runtimeOn(clock);
    outage(clock, 40 * 60_000, runtime);

    await drive(host, clock, processQueueItems('high', clock), 3 * 60 * 60_000);

    expect(host.count('completed')).toBe(10);
    expect(new Set(deliveries)).toEqual(new Set([3])); // 0–15 min, 15–30 min, then processed at 40 min
    const abandons = host.calls.filter((c) => c.action === 'abandon');
    expect(abandons).toHaveLength(20);
    const start = new Date('2026-01-01T00:00:00Z').getTime();
    expect(abandons[0].at - start).toBe(STARTUP_HOLD_MS);
    expect(decodePropertiesToModify(host.store[0].properties.abandonedWith as Uint8Array)).toMatchObject({
      ErrorMessage: 'storage unreachable: 503 Service Unavailable',
      ErrorType: 'Error',
    });
    expect(host.logs).toContain('warning: runtime not available after 900 s: 10 messages abandoned');
  });

  it('without RenewMessageLock the hold ends while the locks still allow an abandon: one delivery per 45 s, warned once', async () => {
    const clock = new FakeClock();
    const host = new FakeServiceBusHost({ clock, renewal: 'unsupported' });
    host.send(10, BODY);
    const { runtime, deliveries } = runtimeOn(clock);
    outage(clock, 3 * 60_000, runtime);

    await drive(host, clock, processQueueItems('high', clock), 60 * 60_000);

    expect(host.count('completed')).toBe(10);
    expect(host.count('deadLettered')).toBe(0);
    // Abandoned at 45 s into each lock (the margin before its end), never after it expired.
    const abandons = host.calls.filter((c) => c.action === 'abandon');
    expect(abandons.length).toBe(40);
    expect(new Set(deliveries)).toEqual(new Set([5]));
    expect(host.calls.filter((c) => c.action === 'renewMessageLock')).toHaveLength(1); // detected once
    expect(host.logs.filter((l) => l.includes('has no RenewMessageLock'))).toHaveLength(1);
  });
});
