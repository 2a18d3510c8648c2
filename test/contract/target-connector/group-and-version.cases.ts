import { isItemError } from '../../../connectors/base/target-batch';
import { applied, applyGroup, at, type ContractContext, type ContractRecord, expectRecords, outdated, shownOutcome } from './context';

/** A failure of the whole group rejects (nothing kept); a version check travels with the write. */
export function groupAndVersionCases(ctx: ContractContext): void {
  ctx.caseIt([])('rejects the whole group when it fails as a whole, with a group error (not an item error), and keeps nothing', async () => {
    const p = await ctx.prepare({ id: 'group-failure', seed: [{ key: 1, label: 'old', qty: 1 }], uses: [] });
    try {
      if (!p.failGroup) throw new Error('the harness must say how a group fails as a whole (failGroup)');
      const expected = await p.failGroup();
      const rejection = await applyGroup(p, [{ key: 1, label: 'new', qty: 10 }, { key: 2, label: 'two', qty: 2 }]).then(
        (outcomes) => ({ resolved: outcomes }),
        (error: unknown) => error,
      );
      expect(rejection).toMatchObject(expected);
      expect(isItemError(rejection)).toBe(false);
      await expectRecords(p, { 1: { label: 'old', qty: 1 }, 2: null });
    } finally {
      await p.done();
    }
  });

  const versionCase = (nullVersion: boolean) => async () => {
    const seed: ContractRecord[] = [
      { key: 1, label: 'before', qty: 1, version: at(10) },
      { key: 2, label: 'before', qty: 2, version: at(10) },
      { key: 3, label: 'before', qty: 3, version: at(10) },
      ...(nullVersion ? [{ key: 4, label: 'before', qty: 4, version: null }] : []),
    ];
    const p = await ctx.prepare({ id: nullVersion ? 'version-check-null' : 'version-check', seed, uses: nullVersion ? ['nullVersion'] : [] });
    try {
      // Older, equal, newer than the target's version, a record the target does not have, one without a version.
      const items = [1, 2, 3, 5, ...(nullVersion ? [4] : [])].map((key) => ({ key, label: `after ${key}`, qty: key * 10 }));
      const trackers = [at(5), at(10), at(20), at(1), ...(nullVersion ? [at(1)] : [])];
      const outcomes = await applyGroup(p, items, { changeTrackers: trackers, versionCheck: true });
      expect(outcomes.map(shownOutcome)).toEqual([outdated(at(10)), applied, applied, applied, ...(nullVersion ? [applied] : [])]);
      await expectRecords(p, {
        1: { label: 'before', qty: 1 }, 2: { label: 'after 2' }, 3: { label: 'after 3' }, 5: { label: 'after 5', qty: 50 },
        ...(nullVersion ? { 4: { label: 'after 4' } } : {}),
      });
    } finally {
      await p.done();
    }
  };

  ctx.caseIt([])('with a version check refuses an older change (outdated, with the target version) and applies equal, newer and missing ones', versionCase(false));
  ctx.caseIt(['nullVersion'])('with a version check applies a change to a record that has no version', versionCase(true));
}
