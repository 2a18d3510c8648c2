import { InvocationContext } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { processQueueItems } from '../../../functions/support/queue-trigger';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { decodePropertiesToModify } from '../../../functions/support/service-bus-settler';
import type { BusMessage } from '../../../src/bus/message-bus';
import type { Clock } from '../../../src/platform/clock';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import type { BatchSettlement, ReceivedItem } from '../../../src/process/received-item';
import type { Runtime } from '../../../src/runtime/runtime';
import { FakeSettlement } from './support/fake-settlement';
import { bindHostMessages, hostBindingContent, type HostMessage, modelBindingData, useSettlementEndpoint } from './support/sdk-binding';
import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import type { ServiceBusTriggerInput } from '../../../functions/support/queue-trigger';
import { STARTUP_HOLD_MS } from '../../../functions/support/startup-hold';
import { FakeClock } from '../../support/fake-clock';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

const NOW = new Date('2026-03-01T08:00:30Z');
const TTL_MS = 14 * 24 * 3600 * 1000;

/** Three messages as the host sends them; the second on its third delivery. */
const BATCH: HostMessage[] = [1, 3, 2].map((deliveryCount, i) => ({
  body: JSON.stringify({ version: 1, jobName: 'crm-accounts', sourceKey: `A-${i}` }),
  messageId: `m-${i}`,
  contentType: 'application/json',
  applicationProperties: { JobName: 'crm-accounts', SourceKey: `A-${i}` },
  deliveryCount,
  enqueuedTime: new Date(NOW.getTime() - 30_000 + i),
  sequenceNumber: 100 + i,
  timeToLiveMs: TTL_MS,
  lockToken: `00000000-0000-4000-8000-00000000000${i}`,
  lockedUntil: new Date(NOW.getTime() + 55_000),
}));

/** A clock whose `every` timers fire only when the test says so (and whose sleeps never end). */
function manualClock() {
  const timers = new Set<() => void>();
  const clock: Clock = {
    now: () => NOW,
    sleep: () => new Promise<void>(() => undefined),
    every: (_ms, fn) => {
      timers.add(fn);
      return () => timers.delete(fn);
    },
  };
  return { clock, tick: () => [...timers].forEach((fn) => fn()), timers };
}

/**
 * A processor honouring executeBatch's contract (one result per item, completion through
 * `settlement.completeMany`, `settleError` per message that could not be settled).
 */
function fakeRuntime(onBatch: (items: readonly ReceivedItem[]) => Promise<void> = async () => undefined) {
  const seen: BusMessage[][] = [];
  const executeBatch = async (items: readonly ReceivedItem[], _queue: string, settlement: BatchSettlement): Promise<ProcessResult[]> => {
    seen.push(items.map((item) => item.message));
    await onBatch(items);
    const errors = await (settlement.completeMany?.(items) ?? Promise.resolve([]));
    return errors.map((err): ProcessResult => ({ outcome: 'Success', disposition: 'completed', jobName: 'crm-accounts', ...(err ? { settleError: String(err) } : {}) }));
  };
  const runtime = { settings: { queues: { work: { high: 'sbqhigh', normal: 'sbqnormal', low: 'sbqlow' } } }, processor: { executeBatch }, init: { ensureInitialized: async () => ({}) } } as unknown as Runtime;
  return { runtime, seen };
}

function invocation() {
  const logs: string[] = [];
  const context = new InvocationContext({ functionName: 'ProcessHighQueueItems', logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });
  return { context, logs };
}

/** The batch decoded from host bytes by our factory, settled through fake host actions. */
function trigger(settlement: FakeSettlement): { messages: ServiceBusReceivedMessage[]; undecodable: []; actions: FakeSettlement } {
  const { messages } = bindHostMessages(BATCH);
  return { messages, undecodable: [], actions: settlement };
}

/** The records but the one probe of RenewMessageLock a fresh client makes (the first message, at once). */
function settlements(settlement: FakeSettlement) {
  const [probe, ...rest] = settlement.records;
  expect(probe).toEqual({ action: 'renewMessageLock', lockToken: tokens[0] });
  return rest;
}

const tokens = BATCH.map((m) => m.lockToken);

describe('batch trigger handler', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = useSettlementEndpoint(1); // the real actions are built but never called here
  });
  afterAll(() => restore());

  it('hands the batch of 3 to executeBatch with the port view of each message and completes each through its own lock', async () => {
    const { runtime, seen } = fakeRuntime();
    setRuntimeFactory(async () => runtime);
    const settlement = new FakeSettlement();
    const { context, logs } = invocation();

    await processQueueItems('high', manualClock().clock)(trigger(settlement), context);

    expect(seen).toHaveLength(1);
    expect(seen[0].map((m) => [m.messageId, m.deliveryCount, m.sequenceNumber])).toEqual([
      ['m-0', 1, '100'],
      ['m-1', 3, '101'],
      ['m-2', 2, '102'],
    ]);
    expect(seen[0][1]).toMatchObject({ enqueuedTime: BATCH[1].enqueuedTime, expiresAt: new Date(BATCH[1].enqueuedTime.getTime() + TTL_MS), applicationProperties: BATCH[1].applicationProperties });
    expect(settlements(settlement).map((r) => [r.action, r.lockToken])).toEqual(tokens.map((t) => ['complete', t]));
    expect(logs).toEqual(['information: 3 messages: 3 Success/completed']);
  });

  it('does not fail the invocation when one complete fails while others succeeded; logs that message', async () => {
    setRuntimeFactory(async () => fakeRuntime().runtime);
    const settlement = new FakeSettlement();
    settlement.lost.add(tokens[1]);
    const { context, logs } = invocation();

    await processQueueItems('high', manualClock().clock)(trigger(settlement), context);

    expect(settlements(settlement).map((r) => r.lockToken)).toEqual([tokens[0], tokens[2]]);
    expect(logs).toEqual([
      `warning: message m-1 (job crm-accounts): Success, completed (not settled: Error: lock ${tokens[1]} lost: it expired)`,
      'information: 3 messages: 3 Success/completed; 1 not settled',
    ]);
  });

  it('fails the invocation when no message could be settled, so that the host abandons them', async () => {
    setRuntimeFactory(async () => fakeRuntime().runtime);
    const settlement = new FakeSettlement();
    tokens.forEach((t) => settlement.lost.add(t));

    await expect(processQueueItems('high', manualClock().clock)(trigger(settlement), invocation().context)).rejects.toThrow(
      `none of the 3 messages could be settled: Error: lock ${tokens[0]} lost: it expired`,
    );
  });

  it('renews every lock while the runtime is still being created, and stops once the invocation ends', async () => {
    let created!: (runtime: Runtime) => void;
    setRuntimeFactory(() => new Promise<Runtime>((resolve) => (created = resolve)));
    const settlement = new FakeSettlement();
    const { clock, tick, timers } = manualClock();

    const running = processQueueItems('high', clock)(trigger(settlement), invocation().context);
    await new Promise(setImmediate);
    expect(settlements(settlement)).toEqual([]); // locks fresh (55 s left): nothing at once but the probe
    tick();
    await new Promise(setImmediate);
    expect(settlements(settlement).map((r) => [r.action, r.lockToken])).toEqual(tokens.map((t) => ['renewMessageLock', t]));

    created(fakeRuntime().runtime);
    await running;
    expect(timers.size).toBe(0);
    expect(settlement.records.filter((r) => r.action === 'complete')).toHaveLength(3);
  });

  it('renews at once a lock that ends within the margin', async () => {
    setRuntimeFactory(() => new Promise<Runtime>(() => undefined));
    const settlement = new FakeSettlement();
    const [first, second, third] = trigger(settlement).messages;
    const ending = { ...second, lockedUntilUtc: new Date(NOW.getTime() + 5_000) };

    void processQueueItems('high', manualClock().clock)({ messages: [first, ending, third], undecodable: [], actions: settlement }, invocation().context);
    await new Promise(setImmediate);
    expect(settlements(settlement).map((r) => [r.action, r.lockToken])).toEqual([['renewMessageLock', tokens[1]]]);
  });

  it("answers the processor's renewLock from the trigger's loop: no second host call, and a lost lock rejects", async () => {
    const settlement = new FakeSettlement();
    const { clock, tick } = manualClock();
    const answers: string[] = [];
    const { runtime } = fakeRuntime(async (items) => {
      settlement.lost.add(tokens[2]);
      tick(); // the trigger's loop renews: 0 and 1 succeed, 2 is lost
      await new Promise(setImmediate);
      for (const item of items) answers.push(await item.settler.renewLock().then(() => 'ok', (err: Error) => err.message));
    });
    setRuntimeFactory(async () => runtime);
    const { context, logs } = invocation();

    await processQueueItems('high', clock)(trigger(settlement), context);

    expect(answers).toEqual(['ok', 'ok', `lock ${tokens[2]} lost: it expired`]);
    expect(settlements(settlement).filter((r) => r.action === 'renewMessageLock').map((r) => r.lockToken)).toEqual([tokens[0], tokens[1]]);
    expect(logs).toContain(`warning: message m-2: lock renewal failed: lock ${tokens[2]} lost: it expired`);
  });

  it('holds the batch while the runtime cannot be created, then abandons every message with error properties and fails', async () => {
    const clock = new FakeClock(NOW);
    setRuntimeFactory(() => Promise.reject(new Error('storage unreachable')));
    const settlement = new FakeSettlement();
    const { context, logs } = invocation();

    const running = processQueueItems('high', clock)(trigger(settlement), context);
    const outcome = running.then(() => 'resolved', (err: Error) => err.message);
    await clock.advance(STARTUP_HOLD_MS - 1);
    expect(settlement.records.filter((r) => r.action === 'abandon')).toEqual([]);
    await clock.advance(1);

    expect(await outcome).toBe('storage unreachable');
    const abandons = settlement.records.filter((r) => r.action === 'abandon');
    expect(abandons.map((r) => r.lockToken)).toEqual(tokens);
    expect(decodePropertiesToModify(abandons[0].propertiesToModify ?? new Uint8Array())).toMatchObject({
      ErrorMessage: 'storage unreachable',
      ErrorType: 'Error',
      ErrorAt: new Date(NOW.getTime() + STARTUP_HOLD_MS).toISOString(),
    });
    // Retried at 5, 10, 20, 40 s, then every minute: 18 waits in 15 minutes, one line each.
    expect(clock.sleeps.slice(0, 6)).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
    expect(logs.filter((l) => l.startsWith('warning: runtime not available (attempt'))).toHaveLength(clock.sleeps.length);
    expect(logs).toContain('warning: runtime not available after 900 s: 3 messages abandoned');
  });

  it('keeps secrets of a creation error out of the hold warnings and the abandoned messages', async () => {
    const clock = new FakeClock(NOW);
    const secret = 'c2VjcmV0LWFjY291bnQta2V5';
    setRuntimeFactory(() => Promise.reject(new Error(`table storage unreachable (DefaultEndpointsProtocol=https;AccountName=st;AccountKey=${secret})`)));
    const settlement = new FakeSettlement();
    const { context, logs } = invocation();

    const outcome = processQueueItems('high', clock)(trigger(settlement), context).catch((err: Error) => err.message);
    await clock.advance(STARTUP_HOLD_MS);
    expect(await outcome).toBe('table storage unreachable (DefaultEndpointsProtocol=https;AccountName=st;AccountKey=***');

    expect(logs[0]).toContain('AccountKey=***');
    expect(logs.join('\n')).not.toContain(secret);
    const abandoned = settlement.records.find((r) => r.action === 'abandon');
    expect(JSON.stringify(decodePropertiesToModify(abandoned?.propertiesToModify ?? new Uint8Array()))).not.toContain(secret);
  });

  it('dead-letters an undecodable message of the batch alone, with the reason, and processes the rest', async () => {
    const { runtime, seen } = fakeRuntime();
    setRuntimeFactory(async () => runtime);
    const settlement = new FakeSettlement();
    const bad = { ...BATCH[1], lockToken: '00000000-0000-4000-8000-0000000000ff' };
    const content = hostBindingContent(bad);
    // The host's layout with the AMQP message cut off inside its application properties.
    const data = [modelBindingData(BATCH[0]), { ...modelBindingData(bad), content: content.subarray(0, content.length - 40) }, modelBindingData(BATCH[2])];
    const input = ResourceFactoryResolver.getInstance().createClient('AzureServiceBusReceivedMessage', data) as ServiceBusTriggerInput;
    const { context, logs } = invocation();

    await processQueueItems('high', manualClock().clock)({ ...input, actions: settlement }, context);

    expect(seen[0].map((m) => m.messageId)).toEqual(['m-0', 'm-2']);
    const deadLettered = settlement.records.filter((r) => r.action === 'deadLetter');
    expect(deadLettered).toEqual([expect.objectContaining({ lockToken: bad.lockToken, reason: 'PermanentError' })]);
    expect(deadLettered[0].description).toMatch(/^Service Bus binding data of message 2 of 3 cannot be decoded \(\d+ bytes\): /);
    expect(decodePropertiesToModify(deadLettered[0].propertiesToModify ?? new Uint8Array())).toMatchObject({ ErrorType: 'PermanentError' });
    expect(settlement.records.filter((r) => r.action === 'complete').map((r) => r.lockToken)).toEqual([tokens[0], tokens[2]]);
    expect(logs[0]).toMatch(/^warning: message 2 of the batch \(lock 00000000-0000-4000-8000-0000000000ff\) dead-lettered: Service Bus binding data of message 2 of 3 cannot be decoded/);
  });

  it('leaves a message without a lock token to expire (it cannot be settled) and processes the rest', async () => {
    const { runtime, seen } = fakeRuntime();
    setRuntimeFactory(async () => runtime);
    const settlement = new FakeSettlement();
    const data = [modelBindingData(BATCH[0]), { ...modelBindingData(BATCH[1]), content: Buffer.alloc(10) }];
    const input = ResourceFactoryResolver.getInstance().createClient('AzureServiceBusReceivedMessage', data) as ServiceBusTriggerInput;
    const { context, logs } = invocation();

    await processQueueItems('high', manualClock().clock)({ ...input, actions: settlement }, context);

    expect(seen[0].map((m) => m.messageId)).toEqual(['m-0']);
    expect(settlement.records.filter((r) => r.action !== 'renewMessageLock').map((r) => [r.action, r.lockToken])).toEqual([['complete', tokens[0]]]);
    expect(logs[0]).toBe(
      'warning: message 2 of the batch (lock unknown) not dead-lettered (no lock token in the binding data: left to expire): Service Bus binding data of message 2 of 2 cannot be decoded (10 bytes): Service Bus binding data: expected a lock token and an AMQP message, got 10 bytes',
    );
  });
});
