import type { BusError, BusErrorCode, ReceivedMessage } from '../../../src/bus/message-bus';
import { busErrorCode, expectCounts, type ContractContext } from './context';
import { receiveAll } from './send-receive.cases';

/** Service Bus's shortest lock duration; the fake clock makes it free. */
const LOCK_MS = 5000;

/** The entries of a `completeMany` result as codes: 'ok' for completed. */
const codes = (results: Array<BusError | undefined>): Array<BusErrorCode | 'ok'> => results.map((r) => r?.code ?? 'ok');

const bodies = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ body: `${prefix}${i}`, messageId: `${prefix}-${i}` }));

/**
 * `completeMany`: per-message outcomes in order, one failure isolated, settled messages gone.
 * Messages of different queues (and subqueues) may share one call: the port settles each by its
 * own lock, and the batch processor settles what it received from several queues together.
 */
export function completeManyCases(ctx: ContractContext): void {
  it('completes every message: one undefined each, the queue is empty, nothing is redelivered', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('many-all');
    await bus.send(q, bodies(5, 'all'));
    const received = await receiveAll(bus, q, 5);
    expect(received).toHaveLength(5);
    expect(await bus.completeMany(received)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
    expect(await bus.peek(q)).toEqual([]);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    expect(await busErrorCode(bus.complete(received[2]))).toBe('LockLost');
  });

  it('a stale lock token is LockLost at its index; the others are completed and the newer delivery keeps its lock', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('many-stale');
    await bus.send(q, bodies(3, 'stale'));
    const [a, b, c] = await receiveAll(bus, q, 3);
    await bus.abandon(b);
    const [bAgain] = await receiveAll(bus, q, 1);
    expect(bAgain.messageId).toBe(b.messageId);
    // Reversed: entries follow the order of the argument, not of the queue.
    const results = await bus.completeMany([c, b, a]);
    expect(codes(results)).toEqual(['ok', 'LockLost', 'ok']);
    await expectCounts(bus, q, { active: 1, scheduled: 0, deadLetter: 0 });
    await bus.complete(bAgain);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('an empty array resolves with []', async () => {
    expect(await ctx.bus().completeMany([])).toEqual([]);
  });

  it('entries already settled, repeated, or malformed fail alone', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('many-mixed');
    await bus.send(q, bodies(3, 'mixed'));
    const [a, b, c] = await receiveAll(bus, q, 3);
    await bus.complete(a);
    const malformed = {} as ReceivedMessage;
    expect(codes(await bus.completeMany([a, b, b, malformed, c]))).toEqual(['LockLost', 'ok', 'LockLost', 'InvalidArgument', 'ok']);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('settles messages of two queues and a dead-letter subqueue in one call', async () => {
    const bus = ctx.bus();
    const q1 = await ctx.queue('many-q1');
    const q2 = await ctx.queue('many-q2');
    await bus.send(q1, bodies(2, 'one'));
    await bus.send(q2, bodies(2, 'two'));
    const fromQ1 = await receiveAll(bus, q1, 2);
    const [toDead, fromQ2] = await receiveAll(bus, q2, 2);
    await bus.deadLetter(toDead, { reason: 'Manual' });
    const [dead] = await receiveAll(bus, q2, 1, true);
    expect(await bus.completeMany([fromQ2, ...fromQ1, dead])).toEqual([undefined, undefined, undefined, undefined]);
    await expectCounts(bus, q1, { active: 0, scheduled: 0, deadLetter: 0 });
    await expectCounts(bus, q2, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  ctx.timeIt('an expired lock is LockLost and only that message is redelivered', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('many-expired', { lockDurationMs: LOCK_MS });
    await bus.send(q, bodies(3, 'exp'));
    const [early] = await receiveAll(bus, q, 1);
    await ctx.elapse(LOCK_MS - 2000);
    const late = await receiveAll(bus, q, 2);
    await ctx.elapse(2500);
    expect(codes(await bus.completeMany([early, ...late]))).toEqual(['LockLost', 'ok', 'ok']);
    const [again] = await receiveAll(bus, q, 1);
    expect([again.messageId, again.deliveryCount]).toEqual([early.messageId, 2]);
    await ctx.elapse(LOCK_MS + 500);
    expect(await bus.completeMany([again])).toEqual([expect.objectContaining({ code: 'LockLost' })]);
    const [third] = await receiveAll(bus, q, 1);
    expect([third.messageId, third.deliveryCount]).toEqual([early.messageId, 3]);
    expect(await bus.completeMany([third])).toEqual([undefined]);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });
}
