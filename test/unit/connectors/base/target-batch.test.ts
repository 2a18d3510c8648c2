import { applyOneByOne } from '../../../../connectors/base/apply-one-by-one';
import { bisectGroup, type ItemOutcome } from '../../../../connectors/base/target-batch';
import { JobActionType, type Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import { PermanentError, TransientError, TransitiveError } from '../../../../src/platform/errors';

describe('bisectGroup', () => {
  /** Applies all or nothing: fails with the error of the first bad item in the subset. */
  function runner(bad: Map<number, Error>, calls: number[][]) {
    return async (subset: readonly number[]): Promise<ItemOutcome[]> => {
      calls.push([...subset]);
      const first = subset.find((i) => bad.has(i));
      if (first !== undefined) throw bad.get(first);
      return subset.map(() => ({ status: 'applied' }));
    };
  }

  it('applies a clean group in one call', async () => {
    const calls: number[][] = [];
    const items = Array.from({ length: 100 }, (_, i) => i);
    const outcomes = await bisectGroup(items, runner(new Map(), calls));
    expect(calls).toHaveLength(1);
    expect(outcomes.every((o) => o.status === 'applied')).toBe(true);
  });

  it('isolates the bad items of 500 and applies their neighbours', async () => {
    const calls: number[][] = [];
    const items = Array.from({ length: 500 }, (_, i) => i);
    const bad = new Map<number, Error>([
      [17, new PermanentError('CHECK constraint failed')],
      [250, new TransitiveError('FOREIGN KEY constraint failed')],
      [499, new PermanentError('invalid input syntax for type integer')],
    ]);
    const outcomes = await bisectGroup(items, runner(bad, calls));
    const failed = outcomes.flatMap((o, i) => (o.status === 'failed' ? [[i, (o.error as Error).message]] : []));
    expect(failed).toEqual([
      [17, 'CHECK constraint failed'],
      [250, 'FOREIGN KEY constraint failed'],
      [499, 'invalid input syntax for type integer'],
    ]);
    expect(outcomes.filter((o) => o.status === 'applied')).toHaveLength(497);
    // Every item applied exactly once.
    const appliedBy = calls.filter((subset) => !subset.some((i) => bad.has(i))).flat();
    expect(appliedBy.sort((a, b) => a - b)).toEqual(items.filter((i) => !bad.has(i)));
    expect(calls.length).toBeLessThan(70);
  });

  it('goes one by one when most of a group is bad, within about 2n calls', async () => {
    const calls: number[][] = [];
    const items = Array.from({ length: 64 }, (_, i) => i);
    const bad = new Map(items.filter((i) => i % 3 !== 0).map((i) => [i, new PermanentError(`bad ${i}`)] as const));
    const outcomes = await bisectGroup(items, runner(bad, calls));
    expect(outcomes.filter((o) => o.status === 'failed')).toHaveLength(bad.size);
    expect(calls.length).toBeLessThanOrEqual(2 * items.length);
  });

  it('rejects on a group error without splitting', async () => {
    const calls: number[][] = [];
    const run = async (subset: readonly number[]) => {
      calls.push([...subset]);
      throw new TransientError('HTTP 503', { retryAfterMs: 1000 });
    };
    await expect(bisectGroup([1, 2, 3, 4, 5, 6], run)).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 1000 });
    expect(calls).toHaveLength(1);
  });

  it('a single bad item takes its error without a second call', async () => {
    const calls: number[][] = [];
    const outcomes = await bisectGroup([7], runner(new Map([[7, new PermanentError('bad')]]), calls));
    expect(outcomes).toEqual([{ status: 'failed', error: expect.objectContaining({ message: 'bad' }) }]);
    expect(calls).toHaveLength(1);
  });
});

describe('applyOneByOne', () => {
  const mapping = { name: 'm', target: { entity: 't', key: ['id'] } } as unknown as Mapping;
  const job = { name: 'j' } as Job;
  const message = (id: string, changeTracker = '2026-01-01T00:00:00Z') => ({ sourceKey: id, targetKey: { id }, changeTracker, fields: {} }) as unknown as QueueMessage;

  it('gives one outcome per message, outdated by the version check', async () => {
    const target = {
      upsert: async (m: QueueMessage) => {
        if (m.sourceKey === 'bad') throw new PermanentError('bad row');
        return {};
      },
      delete: async () => {},
      invokeAction: async () => {},
      getTargetVersion: async (m: QueueMessage) => (m.sourceKey === 'old' ? '2026-06-01T00:00:00Z' : null),
    };
    const outcomes = await applyOneByOne(target, {
      job,
      mapping,
      action: JobActionType.NewUpdate,
      messages: [message('a'), message('bad'), message('old')],
      versionCheck: { type: 'datetime' },
    });
    expect(outcomes.map((o) => o.status)).toEqual(['applied', 'failed', 'outdated']);
  });

  it('rejects when every message failed with a group error', async () => {
    const down = new TransientError('connection refused');
    const target = { upsert: async () => Promise.reject(down), delete: async () => {}, invokeAction: async () => {}, getTargetVersion: async () => null };
    await expect(applyOneByOne(target, { job, mapping, action: JobActionType.NewUpdate, messages: [message('a'), message('b')] })).rejects.toBe(down);
  });
});
