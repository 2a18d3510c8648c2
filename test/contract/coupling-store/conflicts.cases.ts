import { type ContractContext, conflict, uniquePair } from './context';

/** Parked conflicts: one per record (by its a key), replaced, listed, removed. */
export function conflictCases(ctx: ContractContext): void {
  it('gets nothing for a record without a conflict; keeps both versions exactly', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    expect(await store.getConflict(pair, 'A')).toBeUndefined();
    const parked = conflict(pair, 'A', { b: { values: { name: null, deletedFlag: true }, tracker: '7', deleted: true } });
    await store.putConflict(parked);
    expect(await store.getConflict(pair, 'A')).toEqual(parked);
    expect(await store.getConflict(uniquePair(), 'A')).toBeUndefined();
  });

  it('replaces a record\'s conflict (one per record), e.g. with its resolution', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.putConflict(conflict(pair, 'A'));
    const resolved = { ...conflict(pair, 'A'), resolution: 'b' as const, resolvedAt: '2026-12-02T08:00:00.000Z' };
    await store.putConflict(resolved);
    expect(await store.getConflict(pair, 'A')).toEqual(resolved);
    expect(await store.listConflicts(pair)).toEqual([resolved]);
  });

  it('lists conflicts of one pair, or of all ordered by pair and a key', async () => {
    const { store } = ctx.opened();
    const first = uniquePair();
    const second = `${first}z`;
    for (const key of ['m', 'B', 'a']) await store.putConflict(conflict(second, key));
    for (const key of ['z', '1']) await store.putConflict(conflict(first, key));
    expect((await store.listConflicts(second)).map((c) => c.keyA)).toEqual(['B', 'a', 'm']);
    const all = (await store.listConflicts()).filter((c) => c.pair === first || c.pair === second);
    expect(all.map((c) => `${c.pair === first ? 1 : 2}:${c.keyA}`)).toEqual(['1:1', '1:z', '2:B', '2:a', '2:m']);
  });

  it('removes a conflict; false when there is none', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.putConflict(conflict(pair, 'A'));
    expect(await store.removeConflict(pair, 'A')).toBe(true);
    expect(await store.removeConflict(pair, 'A')).toBe(false);
    expect(await store.getConflict(pair, 'A')).toBeUndefined();
    expect(await store.listConflicts(pair)).toEqual([]);
  });
}
