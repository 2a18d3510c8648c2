import { errorKind, errorMessage } from '../../../src/platform/errors';
import { couplingRef, lookupRow } from '../../../src/twoway/coupling-rows';
import { COUPLINGS_TABLE } from '../../../src/twoway/table-coupling-store';
import { type ContractContext, coupling, rejection, uniquePair } from './context';

async function expectChanged(promise: Promise<unknown>): Promise<void> {
  const err = await rejection(promise);
  expect(errorKind(err)).toBe('transient');
  expect(errorMessage(err)).toMatch(/^coupling changed: /);
}

/** Optimistic concurrency: a write on a stale read fails, of concurrent writers exactly one wins. */
export function versionCases(ctx: ContractContext): void {
  it('writes with the version read; a stale version, or none for an existing coupling, fails with "coupling changed"', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.put(coupling(pair, 'A', 'B'));
    await expectChanged(store.put(coupling(pair, 'A', 'B', { syncedAt: 'again' })));
    const first = (await store.get(pair, 'a', 'A'))!;
    await store.put({ ...first, hashA: { name: 'h-new' } });
    const second = (await store.get(pair, 'a', 'A'))!;
    expect(second.version).not.toBe(first.version);
    expect(second.hashA).toEqual({ name: 'h-new' });
    await expectChanged(store.put({ ...first, hashA: { name: 'lost' } }));
    expect((await store.get(pair, 'a', 'A'))?.hashA).toEqual({ name: 'h-new' });
    // A stale write that would have changed the b key leaves the lookups as they were.
    await expectChanged(store.put({ ...first, keyB: 'B-stale' }));
    expect((await store.get(pair, 'b', 'B'))?.keyA).toBe('A');
    expect(await store.get(pair, 'b', 'B-stale')).toBeUndefined();
    await store.remove(pair, 'A');
    await expectChanged(store.put(second));
    expect(await store.get(pair, 'a', 'A')).toBeUndefined();
  });

  it('of concurrent first couplings of a record exactly one wins; the losers\' b keys find nothing', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.put(coupling(pair, 'A', `B${i}`))));
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(errorMessage(r.reason)).toMatch(/^coupling changed: /);
    expect((await store.get(pair, 'a', 'A'))?.keyB).toBe(`B${winners[0]}`);
    for (let i = 0; i < 6; i++) expect((await store.get(pair, 'b', `B${i}`))?.keyA).toBe(i === winners[0] ? 'A' : undefined);
  });

  it('of concurrent writes from the same read exactly one wins', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    await store.put(coupling(pair, 'A', 'B'));
    const read = (await store.get(pair, 'a', 'A'))!;
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.put({ ...read, keyB: i % 2 === 0 ? 'B' : `B${i}`, syncedAt: `w${i}` })));
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    const now = (await store.get(pair, 'a', 'A'))!;
    expect(now.syncedAt).toBe(`w${winners[0]}`);
    expect(await store.get(pair, 'b', now.keyB)).toEqual(now);
    for (const keyB of ['B', 'B1', 'B3', 'B5'].filter((k) => k !== now.keyB)) expect(await store.get(pair, 'b', keyB)).toBeUndefined();
  });

  it('ignores a b lookup a crash left behind, and one that points to another coupling', async () => {
    const { store, storage } = ctx.opened();
    const pair = uniquePair();
    const table = await storage.table(COUPLINGS_TABLE);
    // Crashed before its a row: a lookup to a record that is not coupled.
    await table.upsert(lookupRow(pair, 'B-orphan', 'A-none'));
    expect(await store.get(pair, 'b', 'B-orphan')).toBeUndefined();
    // Crashed after a changed b key, before the old lookup was dropped.
    await store.put(coupling(pair, 'A', 'B-new'));
    await table.upsert(lookupRow(pair, 'B-old', 'A'));
    expect(await store.get(pair, 'b', 'B-old')).toBeUndefined();
    expect((await store.getMany(pair, 'b', ['B-old', 'B-new', 'B-orphan'])).size).toBe(1);
    // The orphan's record coupled for real: the lookup is written again, and found.
    await store.put(coupling(pair, 'A-none', 'B-orphan'));
    expect((await store.get(pair, 'b', 'B-orphan'))?.keyA).toBe('A-none');
    const ref = couplingRef(pair, 'b', 'B-old');
    expect(await table.get(ref.partitionKey, ref.rowKey)).toBeDefined();
  });
}
