import { type ContractContext, coupling, uniquePair } from './context';

/** Reading and writing couplings: by either key, many at once, a changed b key, removal, the list. */
export function couplingCases(ctx: ContractContext): void {
  it('finds nothing before a coupling is written, then finds it by either key with a version', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    expect(await store.get(pair, 'a', 'A1')).toBeUndefined();
    expect(await store.get(pair, 'b', 'B1')).toBeUndefined();
    const written = coupling(pair, 'A1', 'B1');
    await store.put(written);
    const byA = await store.get(pair, 'a', 'A1');
    expect(byA).toEqual({ ...written, version: expect.any(String) });
    expect(await store.get(pair, 'b', 'B1')).toEqual(byA);
    // The other side's key is not this side's.
    expect(await store.get(pair, 'a', 'B1')).toBeUndefined();
    expect(await store.get(pair, 'b', 'A1')).toBeUndefined();
    expect(await store.get(uniquePair(), 'a', 'A1')).toBeUndefined();
  });

  it('keeps hash maps of many fields and both trackers', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    const hashA = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, `${'a'.repeat(60)}${i}`]));
    const written = coupling(pair, 'k', 'k', { hashA, hashB: {}, trackerA: null, trackerB: '42' });
    await store.put(written);
    expect(await store.get(pair, 'a', 'k')).toEqual({ ...written, version: expect.any(String) });
  });

  it('gets many of one side at once; missing ones are absent', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    for (let i = 0; i < 30; i++) await store.put(coupling(pair, `a${i}`, `b${i}`));
    const keysA = ['a1', 'a1', 'missing', ...Array.from({ length: 20 }, (_, i) => `a${i + 10}`)];
    const byA = await store.getMany(pair, 'a', keysA);
    expect([...byA.keys()].sort()).toEqual(['a1', ...Array.from({ length: 20 }, (_, i) => `a${i + 10}`)].sort());
    expect(byA.get('a12')?.keyB).toBe('b12');
    const byB = await store.getMany(pair, 'b', ['b3', 'b29', 'a3', 'nope']);
    expect([...byB.keys()].sort()).toEqual(['b29', 'b3']);
    expect(byB.get('b3')).toEqual(await store.get(pair, 'a', 'a3'));
    expect((await store.getMany(pair, 'b', [])).size).toBe(0);
  });

  it('a changed b key moves the lookup: the old b key finds nothing', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.put(coupling(pair, 'A', 'B-old'));
    const read = (await store.get(pair, 'a', 'A'))!;
    await store.put({ ...read, keyB: 'B-new', syncedAt: '2026-12-02T00:00:00.000Z' });
    expect(await store.get(pair, 'b', 'B-old')).toBeUndefined();
    expect((await store.get(pair, 'b', 'B-new'))?.keyA).toBe('A');
    expect([...(await store.getMany(pair, 'b', ['B-old', 'B-new'])).keys()]).toEqual(['B-new']);
    // And back again.
    const again = (await store.get(pair, 'b', 'B-new'))!;
    await store.put({ ...again, keyB: 'B-old' });
    expect((await store.get(pair, 'b', 'B-old'))?.keyA).toBe('A');
    expect(await store.get(pair, 'b', 'B-new')).toBeUndefined();
  });

  it('removes a coupling with both lookups; false when there is none', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.put(coupling(pair, 'A', 'B'));
    await store.put(coupling(pair, 'A2', 'B2'));
    expect(await store.remove(pair, 'A')).toBe(true);
    expect(await store.get(pair, 'a', 'A')).toBeUndefined();
    expect(await store.get(pair, 'b', 'B')).toBeUndefined();
    expect(await store.remove(pair, 'A')).toBe(false);
    expect(await store.remove(pair, 'never')).toBe(false);
    expect((await store.get(pair, 'b', 'B2'))?.keyA).toBe('A2');
    // Coupled anew (no version: it is absent again).
    await store.put(coupling(pair, 'A', 'B'));
    expect((await store.get(pair, 'b', 'B'))?.keyA).toBe('A');
  });

  it('lists the couplings of one pair only, ordered by a key', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    const other = `${pair}0`;
    for (const key of ['m', 'B', 'a', 'z', '10', '9', 'Ä']) await store.put(coupling(pair, key, `b-${key}`));
    await store.put(coupling(other, 'c', 'b-c'));
    const listed = await store.list(pair);
    expect(listed.map((c) => c.keyA)).toEqual(['10', '9', 'B', 'a', 'm', 'z', 'Ä']);
    expect(listed[0]).toEqual(await store.get(pair, 'a', '10'));
    expect((await store.list(other)).map((c) => c.keyA)).toEqual(['c']);
    expect(await store.list(uniquePair())).toEqual([]);
  });
}
