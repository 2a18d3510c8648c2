import type { ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';
import { HeldLocks } from '../../../../src/bus/azure/held-locks';

const receiver = {} as ServiceBusReceiver;
const held = (lockedUntil: string) => ({ message: { lockedUntilUtc: new Date(lockedUntil) } as ServiceBusReceivedMessage, receiver });

describe('HeldLocks', () => {
  it('forgets deliveries only ten minutes after their lock expired', () => {
    let now = new Date('2024-05-01T10:00:00Z');
    const locks = new HeldLocks({ now: () => now });
    locks.add('a', held('2024-05-01T10:01:00Z'));
    locks.add('b', held('2024-05-01T10:05:00Z'));
    now = new Date('2024-05-01T10:11:00Z');
    locks.forgetExpired();
    expect([locks.get('a') !== undefined, locks.get('b') !== undefined]).toEqual([true, true]);
    now = new Date('2024-05-01T10:11:00.001Z');
    locks.forgetExpired();
    expect([locks.get('a'), locks.get('b') !== undefined]).toEqual([undefined, true]);
    expect(locks.size).toBe(1);
  });

  it('delete and clear drop entries', () => {
    const locks = new HeldLocks({ now: () => new Date('2024-05-01T10:00:00Z') });
    locks.add('a', held('2024-05-01T10:01:00Z'));
    locks.add('b', held('2024-05-01T10:01:00Z'));
    locks.delete('a');
    expect(locks.size).toBe(1);
    locks.clear();
    expect(locks.size).toBe(0);
  });
});
