import { chunkRanges, earliestLockEnd, mayStartChunk, NO_RENEWAL_MIN_LEFT_MS } from '../../../functions/support/lock-budget';
import { processWithinLocks } from '../../../functions/support/within-locks';
import type { BusMessage } from '../../../src/bus/message-bus';
import type { MessageSettler } from '../../../src/process/message-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import type { ReceivedItem } from '../../../src/process/received-item';
import { FakeClock } from '../../support/fake-clock';

const START = new Date('2026-03-01T08:00:00Z');

describe('the lock budget without renewal', () => {
  it('takes the earliest known lock end, a minute after receipt for a message without one', () => {
    const at = START.getTime();
    expect(earliestLockEnd([{ lockedUntilUtc: new Date(at + 50_000) }, { lockedUntilUtc: new Date(at + 58_000) }], at)).toBe(at + 50_000);
    expect(earliestLockEnd([{ lockedUntilUtc: new Date(at + 70_000) }, {}], at)).toBe(at + 60_000);
    expect(earliestLockEnd([], at)).toBe(at + 60_000);
  });

  it('cuts a batch into chunks of 32', () => {
    expect(chunkRanges(70)).toEqual([
      [0, 32],
      [32, 64],
      [64, 70],
    ]);
    expect(chunkRanges(0)).toEqual([]);
  });

  it('starts a chunk only with half a lock left', () => {
    expect(NO_RENEWAL_MIN_LEFT_MS).toBe(30_000);
    expect(mayStartChunk(0, 30_000)).toBe(true);
    expect(mayStartChunk(1, 30_000)).toBe(false);
  });
});

describe('processWithinLocks (fake clock)', () => {
  /** A settler recording what was done to message `i`. */
  function items(count: number, done: string[]): ReceivedItem[] {
    return Array.from({ length: count }, (_, i) => {
      const settler: MessageSettler = {
        complete: async () => void done.push(`complete ${i}`),
        abandon: async (properties) => void done.push(`abandon ${i}${properties ? ' with properties' : ''}`),
        deadLetter: async () => void done.push(`deadLetter ${i}`),
        renewLock: async () => undefined,
      };
      return { message: { messageId: `m-${i}` } as BusMessage, settler };
    });
  }

  it('processes chunks while half a lock is left, then releases the rest unprocessed, without error properties', async () => {
    const clock = new FakeClock(START);
    const done: string[] = [];
    const batch = items(100, done);
    const chunks: number[] = [];
    const released: string[] = [];
    const locks = batch.map(() => ({ lockedUntilUtc: new Date(START.getTime() + 58_000) }));
    const running = processWithinLocks(
      batch,
      locks,
      'sbqhigh',
      async (chunk, _queue, settlement) => {
        chunks.push(chunk.length);
        await clock.sleep(14_000); // the chunk's target work
        await settlement.completeMany!(chunk);
        return chunk.map((): ProcessResult => ({ outcome: 'Success', disposition: 'completed' }));
      },
      {
        clock,
        receivedAt: START.getTime(),
        settlement: { completeMany: async (chunk) => Promise.all(chunk.map((item) => item.settler.complete().then(() => undefined))) },
        onRelease: (count, lockEnd) => released.push(`${count} until ${lockEnd.toISOString()}`),
      },
    );
    await clock.advance(60_000);
    const results = await running;

    // 0 s: 58 s left → chunk 1; 14 s: 44 s left → chunk 2; 28 s: 30 s left → chunk 3; 42 s: 16 s left → release.
    expect(chunks).toEqual([32, 32, 32]);
    expect(released).toEqual(['4 until 2026-03-01T08:00:58.000Z']);
    expect(done.filter((d) => d.startsWith('complete'))).toHaveLength(96);
    expect(done.slice(-4)).toEqual(['abandon 96', 'abandon 97', 'abandon 98', 'abandon 99']);
    expect(results[95]).toEqual({ outcome: 'Success', disposition: 'completed' });
    expect(results[96]).toEqual({
      outcome: 'Deferred',
      disposition: 'abandoned',
      error: 'not started: less than half a lock left (locks end 2026-03-01T08:00:58.000Z, not renewable on this host)',
    });
  });
});
