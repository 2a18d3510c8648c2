import type { AzureClients } from '../../../../src/bus/azure/azure-connection';
import { AzureServiceBus } from '../../../../src/bus/azure/azure-bus';
import { SETTLE_CONCURRENCY, settleConcurrently } from '../../../../src/bus/azure/settle-concurrently';
import { BusError, type ReceivedMessage } from '../../../../src/bus/message-bus';
import { FakeReceiver, sdkError } from './support/fake-receiver';

/** The SDK clients are replaced: every receiver the adapter opens is this fake (no broker here). */
const mockLink = { receiver: new FakeReceiver() };
jest.mock('../../../../src/bus/azure/azure-connection', () => ({
  createAzureClients: (): Partial<AzureClients> => ({
    client: { createReceiver: () => mockLink.receiver.asReceiver(), close: async () => undefined } as unknown as AzureClients['client'],
    emulator: true,
    namespace: 'fake.servicebus.windows.net',
  }),
}));

const codes = (results: Array<BusError | undefined>) => results.map((r) => r?.code ?? 'ok');

describe('AzureServiceBus.completeMany (fake receiver)', () => {
  let receiver: FakeReceiver;
  let bus: AzureServiceBus;

  beforeEach(() => {
    receiver = new FakeReceiver();
    mockLink.receiver = receiver;
    bus = new AzureServiceBus({ connectionString: 'Endpoint=sb://fake;SharedAccessKeyName=k;SharedAccessKey=v' });
  });

  afterEach(() => bus.close());

  async function received(n: number): Promise<ReceivedMessage[]> {
    receiver.enqueue(n);
    return bus.receive('q', { maxMessages: n });
  }

  it('completes every message with at most 16 completions in flight, results in order', async () => {
    const messages = await received(40);
    const results = await bus.completeMany(messages);
    expect(results).toEqual(new Array(40).fill(undefined));
    expect(receiver.calls).toBe(40);
    expect(receiver.peakInFlight).toBe(SETTLE_CONCURRENCY);
    expect(receiver.completed.sort()).toEqual(messages.map((m) => m.lockToken).sort());
  });

  it("maps the broker's lock-lost answer to LockLost at its index; the lock is then forgotten", async () => {
    const [a, b, c] = await received(3);
    receiver.locked.delete(b.lockToken);
    expect(codes(await bus.completeMany([a, b, c]))).toEqual(['ok', 'LockLost', 'ok']);
    const calls = receiver.calls;
    expect(codes(await bus.completeMany([b]))).toEqual(['LockLost']);
    expect(receiver.calls).toBe(calls);
  });

  it('a transient failure of one message is Unavailable for it alone, and its lock is kept for a retry', async () => {
    const [a, b] = await received(2);
    receiver.failures.set(a.lockToken, sdkError('ServiceBusy'));
    expect(codes(await bus.completeMany([a, b]))).toEqual(['Unavailable', 'ok']);
    receiver.failures.clear();
    expect(await bus.completeMany([a])).toEqual([undefined]);
  });

  it('throws Unavailable when no message could be settled because the broker is unreachable', async () => {
    const messages = await received(3);
    for (const m of messages) receiver.failures.set(m.lockToken, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await expect(bus.completeMany(messages)).rejects.toMatchObject({ name: 'BusError', code: 'Unavailable' });
  });

  it('settles a repeated delivery once; a malformed entry is InvalidArgument; [] makes no call', async () => {
    const [a] = await received(1);
    expect(await bus.completeMany([])).toEqual([]);
    expect(codes(await bus.completeMany([a, a, {} as ReceivedMessage]))).toEqual(['ok', 'LockLost', 'InvalidArgument']);
    expect(receiver.calls).toBe(1);
  });

  it('refuses work once closed', async () => {
    const [a] = await received(1);
    await bus.close();
    await expect(bus.completeMany([a])).rejects.toMatchObject({ code: 'InvalidArgument' });
  });
});

describe('settleConcurrently', () => {
  it('honours a smaller cap and keeps the order of the argument, not of completion', async () => {
    let inFlight = 0;
    let peak = 0;
    const messages = Array.from({ length: 10 }, (_, i) => ({ lockToken: `t${i}`, queue: 'q' }) as ReceivedMessage);
    const results = await settleConcurrently(
      messages,
      async (m) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        // Later messages finish first.
        await new Promise((resolve) => setTimeout(resolve, 20 - Number(m.lockToken.slice(1))));
        inFlight--;
        if (m.lockToken === 't7') throw new BusError('LockLost', 'gone');
      },
      3,
    );
    expect(peak).toBe(3);
    expect(codes(results)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'LockLost', 'ok', 'ok']);
  });

  it('maps anything but a BusError through the error table', async () => {
    const messages = [{ lockToken: 'x', queue: 'q' }, { lockToken: 'y', queue: 'q' }] as ReceivedMessage[];
    const results = await settleConcurrently(messages, async (m) => {
      if (m.lockToken === 'x') throw sdkError('MessageLockLost');
    });
    expect(results[0]).toMatchObject({ code: 'LockLost', message: expect.stringContaining("completeMany on queue 'q'") });
    expect(results[1]).toBeUndefined();
  });
});
