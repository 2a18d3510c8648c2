import { JobActionType } from '../../../src/model/job';
import { applied, applyGroup, type ContractContext, expectRecords, shownOutcome } from './context';

/** Deletes (a missing record is a success) and the response fields of every written record. */
export function deleteAndResponseCases(ctx: ContractContext): void {
  ctx.caseIt([])('deletes a group; deleting a record that does not exist is a success', async () => {
    const p = await ctx.prepare({ id: 'deletes', seed: [1, 2, 3].map((key) => ({ key, label: `r${key}`, qty: key })), uses: [] });
    try {
      const outcomes = await applyGroup(p, [{ key: 1 }, { key: 9 }, { key: 3 }], { action: JobActionType.Delete });
      expect(outcomes.map(shownOutcome)).toEqual([applied, applied, applied]);
      await expectRecords(p, { 1: null, 2: { label: 'r2', qty: 2 }, 3: null, 9: null });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['generated'])('returns the asked response field of every written record, updated or created, per item', async () => {
    const p = await ctx.prepare({ id: 'response-fields', seed: [{ key: 1, qty: 1 }], uses: ['generated'] });
    try {
      if (!p.generatedField || !p.generated) throw new Error('the harness must name its generated field (generatedField, generated)');
      const outcomes = await applyGroup(p, [{ key: 1, qty: 5 }, { key: 2, qty: 6 }], { returning: p.generatedField });
      const field = p.generatedField;
      const [one, two] = [await p.generated(1), await p.generated(2)];
      expect(one).not.toEqual(two);
      expect(outcomes).toEqual([{ status: 'applied', returned: { [field]: one } }, { status: 'applied', returned: { [field]: two } }]);
      await expectRecords(p, { 1: { qty: 5 }, 2: { qty: 6 } });
    } finally {
      await p.done();
    }
  });
}
