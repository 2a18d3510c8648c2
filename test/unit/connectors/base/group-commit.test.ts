import { GroupCommit } from '../../../../connectors/base/group-commit';

describe('GroupCommit', () => {
  it('sends the first item alone and groups what queued meanwhile, each keeping its own outcome', async () => {
    const sent: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const commit = new GroupCommit<string, string>({
      sendOne: async (item) => {
        sent.push([item]);
        if (item === 'a') await gate;
        return `${item}!`;
      },
      sendMany: async (items) => {
        sent.push(items);
        return items.map((item) => (item === 'c' ? { ok: false as const, error: new Error('c failed') } : { ok: true as const, value: `${item}!` }));
      },
      maxSize: 2,
    });
    const results = Promise.allSettled(['a', 'b', 'c', 'd'].map((item) => commit.submit(item)));
    release();
    expect((await results).map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a!', 'b!', 'c failed', 'd!']);
    expect(sent).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('fails every item of a request that failed as a whole', async () => {
    const commit = new GroupCommit<number, number>({
      sendOne: async () => new Promise((r) => setImmediate(() => r(0))),
      sendMany: async () => {
        throw new Error('network down');
      },
      maxSize: 10,
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => commit.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  });
});
