import { type ContractContext, coupling, conflict, uniquePair } from './context';

/** Record keys as systems have them: any character, any length. */
const KEYS = [
  'with|pipe|parts',
  'back\\slash',
  'slash/hash#question?',
  'tab\tnewline\ncontrol\u0001',
  'Zürich – 東京 🚀',
  "quote's \"double\"",
  ' spaced ',
  'k'.repeat(2000),
];

export function keyCases(ctx: ContractContext): void {
  it('takes keys with any characters and of any length, on both sides', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    for (const [i, key] of KEYS.entries()) await store.put(coupling(pair, key, `${KEYS[KEYS.length - 1 - i]}|b`));
    for (const [i, key] of KEYS.entries()) {
      const byA = await store.get(pair, 'a', key);
      expect(byA?.keyA).toBe(key);
      expect(await store.get(pair, 'b', `${KEYS[KEYS.length - 1 - i]}|b`)).toEqual(byA);
    }
    expect((await store.getMany(pair, 'a', KEYS)).size).toBe(KEYS.length);
    expect((await store.list(pair)).map((c) => c.keyA)).toEqual([...KEYS].sort());
    expect(await store.get(pair, 'a', 'with|pipe')).toBeUndefined();
    for (const key of KEYS) expect(await store.remove(pair, key)).toBe(true);
    expect(await store.list(pair)).toEqual([]);
  });

  it('takes such keys for conflicts too', async () => {
    const { store } = ctx.opened();
    const pair = uniquePair();
    for (const key of KEYS) await store.putConflict(conflict(pair, key));
    for (const key of KEYS) expect((await store.getConflict(pair, key))?.keyA).toBe(key);
    expect((await store.listConflicts(pair)).map((c) => c.keyA)).toEqual([...KEYS].sort());
  });
}
