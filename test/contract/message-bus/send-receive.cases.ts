import type { MessageBus, ReceivedMessage } from '../../../src/bus/message-bus';
import { busErrorCode, text, type ContractContext } from './context';

const FOURTEEN_DAYS = 14 * 24 * 60 * 60 * 1000;

/** Receives until `count` messages arrived (Service Bus may return fewer than asked per call). */
export async function receiveAll(bus: MessageBus, queue: string, count: number, deadLetter = false): Promise<ReceivedMessage[]> {
  const got: ReceivedMessage[] = [];
  for (let i = 0; i < 20 && got.length < count; i++) {
    const options = { maxMessages: count - got.length, maxWaitMs: 1000 };
    got.push(...(await bus.receive(queue, deadLetter ? { ...options, subQueue: 'deadLetter' } : options)));
  }
  return got;
}

export function sendReceiveCases(ctx: ContractContext): void {
  it('round-trips body, headers and application properties, with delivery metadata', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('fields');
    await bus.send(q, [
      {
        body: '{"hello":"wörld"}',
        messageId: 'fields-1',
        subject: 'JobA',
        correlationId: 'corr-1',
        contentType: 'application/json',
        applicationProperties: { JobName: 'JobA', Count: 42, Flag: true, Empty: null },
      },
    ]);
    const [m] = await receiveAll(bus, q, 1);
    expect(text(m.body)).toBe('{"hello":"wörld"}');
    expect(m).toMatchObject({ messageId: 'fields-1', subject: 'JobA', correlationId: 'corr-1', contentType: 'application/json', deliveryCount: 1, queue: q });
    expect(m.applicationProperties).toEqual({ JobName: 'JobA', Count: 42, Flag: true, Empty: null });
    expect(m.subQueue).toBeUndefined();
    expect(m.lockToken).toEqual(expect.any(String));
    expect(m.lockToken.length).toBeGreaterThan(0);
    expect(m.sequenceNumber).toMatch(/^\d+$/);
    expect(m.expiresAt.getTime() - m.enqueuedTime.getTime()).toBe(FOURTEEN_DAYS);
    const lockMs = m.lockedUntil.getTime() - ctx.now().getTime();
    expect(lockMs).toBeGreaterThan(55_000);
    expect(lockMs).toBeLessThanOrEqual(65_000);
  });

  it('round-trips a binary body byte for byte and gives a message id when none is set', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('binary');
    const bytes = Uint8Array.from([0, 255, 1, 254, 0x80, 0x7f]);
    await bus.send(q, [{ body: bytes }]);
    const [m] = await receiveAll(bus, q, 1);
    expect(Array.from(m.body)).toEqual(Array.from(bytes));
    expect(m.messageId.length).toBeGreaterThan(0);
  });

  it('delivers first in, first out, with increasing sequence numbers across sends', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('fifo');
    await bus.send(q, [0, 1, 2, 3, 4].map((i) => ({ body: `m${i}` })));
    await bus.send(q, [5, 6, 7, 8, 9].map((i) => ({ body: `m${i}` })));
    const got = await receiveAll(bus, q, 10);
    expect(got.map((m) => text(m.body))).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']);
    const seqs = got.map((m) => BigInt(m.sequenceNumber));
    for (let i = 1; i < seqs.length; i++) expect(seqs[i] > seqs[i - 1]).toBe(true);
  });

  it('returns at most maxMessages, and [] at once from an empty queue without maxWaitMs', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('max');
    await bus.send(q, [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    const first = await bus.receive(q, { maxMessages: 2, maxWaitMs: 2000 });
    expect(first.length).toBeGreaterThanOrEqual(1);
    expect(first.length).toBeLessThanOrEqual(2);
    await receiveAll(bus, q, 3 - first.length);
    const started = Date.now();
    expect(await bus.receive(q)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('waits up to maxWaitMs for a message sent meanwhile, and returns [] when none comes', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('wait');
    const started = Date.now();
    const pending = bus.receive(q, { maxWaitMs: 10_000 });
    setTimeout(() => void bus.send(q, [{ body: 'late' }]), 300);
    const got = await pending;
    expect(got.map((m) => text(m.body))).toEqual(['late']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(8000);
    await bus.complete(got[0]);
    const emptyStart = Date.now();
    expect(await bus.receive(q, { maxWaitMs: 400 })).toEqual([]);
    expect(Date.now() - emptyStart).toBeGreaterThanOrEqual(350);
  });

  it('hides a locked message from other receivers while peek still shows it', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('locked');
    await bus.send(q, [{ body: 'only', messageId: 'locked-1' }]);
    const [m] = await receiveAll(bus, q, 1);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    expect((await bus.peek(q)).map((p) => p.messageId)).toEqual(['locked-1']);
    await bus.complete(m);
  });

  it('peeks in order from a sequence number without locking or counting deliveries', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('peek');
    await bus.send(q, ['p0', 'p1', 'p2', 'p3', 'p4'].map((body) => ({ body })));
    const all = await bus.peek(q);
    expect(all.map((m) => text(m.body))).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(all.map((m) => m.deliveryCount)).toEqual([0, 0, 0, 0, 0]);
    const fromThird = await bus.peek(q, { fromSequenceNumber: all[2].sequenceNumber });
    expect(fromThird.map((m) => text(m.body))).toEqual(['p2', 'p3', 'p4']);
    expect((await bus.peek(q, { maxMessages: 2 })).map((m) => text(m.body))).toEqual(['p0', 'p1']);
    const [first] = await receiveAll(bus, q, 1);
    expect([text(first.body), first.deliveryCount]).toEqual(['p0', 1]);
  });

  it('lists its queues and answers QueueNotFound for an unknown one', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('listed');
    expect(await bus.listQueues()).toContain(q);
    const missing = `hw-missing-${Date.now().toString(36)}`;
    expect(await busErrorCode(bus.send(missing, [{ body: 'x' }]))).toBe('QueueNotFound');
    expect(await busErrorCode(bus.receive(missing))).toBe('QueueNotFound');
    expect(await busErrorCode(bus.peek(missing))).toBe('QueueNotFound');
    expect(await busErrorCode(bus.counts(missing))).toBe('QueueNotFound');
    expect(await busErrorCode(bus.createBatch(missing))).toBe('QueueNotFound');
  });
}
