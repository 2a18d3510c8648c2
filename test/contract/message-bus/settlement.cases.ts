import { busErrorCode, expectCounts, text, type ContractContext } from './context';
import { receiveAll } from './send-receive.cases';

export function settlementCases(ctx: ContractContext): void {
  it('complete removes the message; settling it again is LockLost', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('complete');
    await bus.send(q, [{ body: 'done' }]);
    const [m] = await receiveAll(bus, q, 1);
    await bus.complete(m);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
    expect(await bus.peek(q)).toEqual([]);
    expect(await busErrorCode(bus.complete(m))).toBe('LockLost');
    expect(await busErrorCode(bus.abandon(m))).toBe('LockLost');
    expect(await busErrorCode(bus.deadLetter(m, { reason: 'Late' }))).toBe('LockLost');
  });

  it('abandon redelivers at once with deliveryCount + 1 and the properties merged', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('abandon');
    await bus.send(q, [{ body: 'again', applicationProperties: { JobName: 'A', ErrorMessage: 'old' } }]);
    const [first] = await receiveAll(bus, q, 1);
    await bus.abandon(first, { ErrorMessage: 'boom', ErrorType: 'TransientError' });
    const [second] = await receiveAll(bus, q, 1);
    expect(second.messageId).toBe(first.messageId);
    expect(second.sequenceNumber).toBe(first.sequenceNumber);
    expect(second.deliveryCount).toBe(2);
    expect(second.lockToken).not.toBe(first.lockToken);
    expect(second.applicationProperties).toEqual({ JobName: 'A', ErrorMessage: 'boom', ErrorType: 'TransientError' });
    expect(await busErrorCode(bus.complete(first))).toBe('LockLost');
    await bus.complete(second);
  });

  it('abandon at maxDeliveryCount dead-letters with MaxDeliveryCountExceeded, keeping the last properties', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('maxdelivery', { maxDeliveryCount: 3 });
    await bus.send(q, [{ body: 'poison', messageId: 'poison-1' }]);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [m] = await receiveAll(bus, q, 1);
      expect(m.deliveryCount).toBe(attempt);
      await bus.abandon(m, { Attempt: attempt, ErrorMessage: `failed ${attempt}` });
    }
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 1 });
    const [dead] = await receiveAll(bus, q, 1, true);
    expect(dead).toMatchObject({ messageId: 'poison-1', deadLetterReason: 'MaxDeliveryCountExceeded', subQueue: 'deadLetter', queue: q });
    expect(dead.applicationProperties).toMatchObject({ Attempt: 3, ErrorMessage: 'failed 3' });
    await bus.complete(dead);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('deadLetter moves the message with reason, description and properties to the dead-letter subqueue', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('deadletter');
    await bus.send(q, [{ body: 'bad', messageId: 'bad-1', applicationProperties: { JobName: 'A' } }]);
    const [m] = await receiveAll(bus, q, 1);
    await bus.deadLetter(m, { reason: 'ValidationFailed', description: 'fields.name is required', propertiesToModify: { ErrorType: 'PermanentError' } });
    expect(await busErrorCode(bus.complete(m))).toBe('LockLost');
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 1 });
    const [peeked] = await bus.peek(q, { subQueue: 'deadLetter' });
    expect(peeked).toMatchObject({ messageId: 'bad-1', deadLetterReason: 'ValidationFailed' });
    const [dead] = await receiveAll(bus, q, 1, true);
    expect(text(dead.body)).toBe('bad');
    expect(dead).toMatchObject({
      messageId: 'bad-1',
      deadLetterReason: 'ValidationFailed',
      deadLetterErrorDescription: 'fields.name is required',
      deadLetterSource: q,
      subQueue: 'deadLetter',
      queue: q,
    });
    expect(dead.applicationProperties).toMatchObject({ JobName: 'A', ErrorType: 'PermanentError' });
    await bus.complete(dead);
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('peek-locks the dead-letter subqueue: abandon keeps the message there for another receive', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('dlq-abandon');
    await bus.send(q, [{ body: 'parked' }]);
    const [m] = await receiveAll(bus, q, 1);
    await bus.deadLetter(m, { reason: 'Manual' });
    const [first] = await receiveAll(bus, q, 1, true);
    expect(await bus.receive(q, { subQueue: 'deadLetter', maxWaitMs: 300 })).toEqual([]);
    await bus.abandon(first, { Note: 'look later' });
    await expectCounts(bus, q, { active: 0, scheduled: 0, deadLetter: 1 });
    const [again] = await receiveAll(bus, q, 1, true);
    expect(again.messageId).toBe(first.messageId);
    expect(again.deliveryCount).toBeGreaterThan(first.deliveryCount);
    expect(again.applicationProperties).toMatchObject({ Note: 'look later' });
    await bus.complete(again);
    expect(await bus.receive(q, { maxWaitMs: 300 })).toEqual([]);
  });

  it('counts active (locked included), scheduled and dead-lettered messages', async () => {
    const bus = ctx.bus();
    const q = await ctx.queue('counts');
    const later = new Date(ctx.now().getTime() + 60 * 60 * 1000);
    await bus.send(q, [{ body: 'a' }, { body: 'b' }, { body: 'c' }, { body: 'later', scheduledEnqueueTime: later }]);
    const [m] = await receiveAll(bus, q, 1);
    await expectCounts(bus, q, { active: 3, scheduled: 1, deadLetter: 0 });
    await bus.deadLetter(m, { reason: 'Manual' });
    await expectCounts(bus, q, { active: 2, scheduled: 1, deadLetter: 1 });
  });
}
