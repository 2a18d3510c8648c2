import { busErrorCode, expectCounts, text, type ContractContext } from './context';
import { receiveAll } from './send-receive.cases';

/** Service Bus's shortest lock duration; the fake clock makes it free. */
const LOCK_MS = 5000;

export function timeCases(ctx: ContractContext): void {
  const { timeIt } = ctx;

  timeIt('redelivers a message whose lock expired, with deliveryCount + 1; the old lock is lost', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('lock-expiry', { lockDurationMs: LOCK_MS });
    await bus.send(q, [{ body: 'slow', messageId: 'slow-1' }]);
    const [first] = await receiveAll(bus, q, 1);
    expect(first.lockedUntil.getTime() - ctx.now().getTime()).toBeLessThanOrEqual(LOCK_MS);
    await ctx.elapse(LOCK_MS + 500);
    const [second] = await receiveAll(bus, q, 1);
    expect([second.messageId, second.deliveryCount]).toEqual(['slow-1', 2]);
    expect(await busErrorCode(bus.complete(first))).toBe('LockLost');
    await bus.complete(second);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  timeIt('answers LockLost to every settlement with an expired lock, before any redelivery', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('lock-lost', { lockDurationMs: LOCK_MS });
    await bus.send(q, [{ body: 'late' }]);
    const [m] = await receiveAll(bus, q, 1);
    await ctx.elapse(LOCK_MS + 500);
    expect(await busErrorCode(bus.complete(m))).toBe('LockLost');
    expect(await busErrorCode(bus.abandon(m))).toBe('LockLost');
    expect(await busErrorCode(bus.deadLetter(m, { reason: 'Late' }))).toBe('LockLost');
    expect(await busErrorCode(bus.renewLock(m))).toBe('LockLost');
    const [again] = await receiveAll(bus, q, 1);
    expect(again.deliveryCount).toBe(2);
    await bus.complete(again);
  });

  timeIt('renewLock extends the lock by the lock duration from now', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('renew', { lockDurationMs: LOCK_MS });
    await bus.send(q, [{ body: 'long job' }]);
    const [m] = await receiveAll(bus, q, 1);
    await ctx.elapse(3000);
    const until = await bus.renewLock(m);
    expect(until.getTime()).toBeGreaterThan(m.lockedUntil.getTime());
    expect(Math.abs(until.getTime() - (ctx.now().getTime() + LOCK_MS))).toBeLessThan(2000);
    await ctx.elapse(3000);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    await bus.complete(m);
  });

  timeIt('dead-letters with MaxDeliveryCountExceeded when the lock of the last allowed delivery expires', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('expiry-max', { lockDurationMs: LOCK_MS, maxDeliveryCount: 2 });
    await bus.send(q, [{ body: 'stuck', messageId: 'stuck-1' }]);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const [m] = await receiveAll(bus, q, 1);
      expect(m.deliveryCount).toBe(delivery);
      await ctx.elapse(LOCK_MS + 500);
    }
    expect(await bus.receive(q, { maxWaitMs: 1000 })).toEqual([]);
    const [dead] = await receiveAll(bus, q, 1, true);
    expect(dead).toMatchObject({ messageId: 'stuck-1', deadLetterReason: 'MaxDeliveryCountExceeded' });
    await bus.complete(dead);
  });

  timeIt('dead-letters an expired message with TTLExpiredException', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('ttl');
    await bus.send(q, [{ body: 'stale', messageId: 'stale-1', timeToLiveMs: 2000 }, { body: 'fresh', messageId: 'fresh-1' }]);
    await ctx.elapse(2500);
    const [live] = await receiveAll(bus, q, 1);
    expect(live.messageId).toBe('fresh-1');
    await bus.complete(live);
    const [dead] = await receiveAll(bus, q, 1, true);
    expect(dead).toMatchObject({ messageId: 'stale-1', deadLetterReason: 'TTLExpiredException' });
    expect(text(dead.body)).toBe('stale');
    await bus.complete(dead);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  timeIt('delivers a scheduled message once its time has come', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('scheduled');
    const at = new Date(ctx.now().getTime() + 3000);
    await bus.send(q, [{ body: 'on time', scheduledEnqueueTime: at }]);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    await ctx.elapse(3500);
    const [m] = await receiveAll(bus, q, 1);
    expect(text(m.body)).toBe('on time');
    expect(m.scheduledEnqueueTime?.getTime()).toBe(at.getTime());
    expect(m.enqueuedTime.getTime()).toBeGreaterThanOrEqual(at.getTime() - 1000);
    await bus.complete(m);
  });

  timeIt('accepts a messageId again once the duplicate window has passed', async () => {
    const bus = ctx.bus();
    const window = 20_000;
    const q = await ctx.queue('dup-window', { duplicateDetectionWindowMs: window });
    await bus.send(q, [{ body: 'one', messageId: 'again-1' }]);
    await ctx.elapse(window + 1500);
    await bus.send(q, [{ body: 'two', messageId: 'again-1' }]);
    const got = await receiveAll(bus, q, 2);
    expect(got.map((m) => text(m.body))).toEqual(['one', 'two']);
    for (const m of got) await bus.complete(m);
  });
}
