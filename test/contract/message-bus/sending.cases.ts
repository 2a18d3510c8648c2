import { busErrorCode, expectCounts, text, type ContractContext } from './context';
import { receiveAll } from './send-receive.cases';

const LIMIT = 256 * 1024;

export function sendingCases(ctx: ContractContext): void {
  it('drops a messageId already sent within the duplicate window, even after completion', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('dupes');
    await bus.send(q, [{ body: 'first', messageId: 'dup-1' }]);
    await bus.send(q, [{ body: 'second', messageId: 'dup-1' }]);
    await bus.send(q, [
      { body: 'third', messageId: 'dup-2' },
      { body: 'fourth', messageId: 'dup-2' },
    ]);
    const peeked = await bus.peek(q);
    expect(peeked.map((m) => [m.messageId, text(m.body)])).toEqual([
      ['dup-1', 'first'],
      ['dup-2', 'third'],
    ]);
    const got = await receiveAll(bus, q, 2);
    for (const m of got) await bus.complete(m);
    await bus.send(q, [{ body: 'resent', messageId: 'dup-1' }]);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('rejects a message over 256 KiB with MessageTooLarge and sends none of its call', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('large');
    const huge = 'x'.repeat(LIMIT + 1);
    expect(await busErrorCode(bus.send(q, [{ body: huge }]))).toBe('MessageTooLarge');
    expect(await busErrorCode(bus.send(q, [{ body: 'small' }, { body: huge }]))).toBe('MessageTooLarge');
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
    await bus.send(q, [{ body: 'y'.repeat(200 * 1024) }]);
    const [m] = await receiveAll(bus, q, 1);
    expect(m.body.length).toBe(200 * 1024);
    await bus.complete(m);
  });

  it('fills a batch up to its size limit and sends it whole', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('batch');
    const batch = await bus.createBatch(q);
    expect(batch.queue).toBe(q);
    expect(batch.maxSizeInBytes).toBeGreaterThan(200 * 1024);
    expect(batch.maxSizeInBytes).toBeLessThanOrEqual(LIMIT);
    expect(batch.tryAdd({ body: 'x'.repeat(LIMIT + 1) })).toBe(false);
    expect(batch.count).toBe(0);
    const body = 'b'.repeat(20 * 1024);
    let added = 0;
    while (batch.tryAdd({ body, messageId: `batch-${added}` })) {
      added++;
      expect(batch.count).toBe(added);
      expect(batch.sizeInBytes).toBeLessThanOrEqual(batch.maxSizeInBytes);
    }
    expect(added).toBeGreaterThanOrEqual(10);
    expect(added).toBeLessThanOrEqual(13);
    expect(batch.sizeInBytes).toBeGreaterThan(added * 20 * 1024 - 1);
    await bus.sendBatch(batch);
    const got = await receiveAll(bus, q, added);
    expect(got.map((m) => m.messageId)).toEqual(Array.from({ length: added }, (_, i) => `batch-${i}`));
    for (const m of got) await bus.complete(m);
  });

  it('keeps a message scheduled for later out of receives and counts it as scheduled', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('scheduled-later');
    const at = new Date(ctx.now().getTime() + 60 * 60 * 1000);
    await bus.send(q, [{ body: 'later', messageId: 'later-1', scheduledEnqueueTime: at }]);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    await expectCounts(bus, q, { active: 0, scheduled: 1, deadLetter: 0 });
    const [peeked] = await bus.peek(q);
    expect(peeked.messageId).toBe('later-1');
    expect(peeked.scheduledEnqueueTime?.getTime()).toBe(at.getTime());
  });

  it('caps a message time to live at the queue default', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('ttl-cap', { defaultTimeToLiveMs: 60 * 60 * 1000 });
    await bus.send(q, [{ body: 'default' }, { body: 'short', timeToLiveMs: 10 * 60 * 1000 }, { body: 'long', timeToLiveMs: 24 * 60 * 60 * 1000 }]);
    const got = await receiveAll(bus, q, 3);
    const ttl = got.map((m) => [text(m.body), m.expiresAt.getTime() - m.enqueuedTime.getTime()]);
    expect(ttl).toEqual([
      ['default', 60 * 60 * 1000],
      ['short', 10 * 60 * 1000],
      ['long', 60 * 60 * 1000],
    ]);
    for (const m of got) await bus.complete(m);
  });
}
