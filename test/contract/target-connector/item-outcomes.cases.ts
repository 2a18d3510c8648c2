import { applied, applyGroup, type ContractContext, expectRecords, failed, shownOutcome } from './context';

/** One outcome per item, in order; a data error fails its item alone, classified permanent or transitive. */
export function itemOutcomeCases(ctx: ContractContext): void {
  ctx.caseIt([])('applies a group: one applied outcome per item, in the order of the messages', async () => {
    const p = await ctx.prepare({ id: 'applies-in-order', seed: [{ key: 1, label: 'old', qty: 1 }], uses: [] });
    try {
      const outcomes = await applyGroup(p, [{ key: 3, label: 'three', qty: 3 }, { key: 1, label: 'one', qty: 10 }, { key: 2, label: 'two', qty: 2 }]);
      expect(outcomes.map(shownOutcome)).toEqual([applied, applied, applied]);
      await expectRecords(p, { 1: { label: 'one', qty: 10 }, 2: { label: 'two', qty: 2 }, 3: { label: 'three', qty: 3 } });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt([])('fails an item with a value of the wrong type alone (PermanentError); its neighbours are applied', async () => {
    const p = await ctx.prepare({ id: 'permanent-item-error', seed: [], uses: [] });
    try {
      const outcomes = await applyGroup(p, [{ key: 1, label: 'one', qty: 1 }, { key: 2, label: 'two', qty: 'many' }, { key: 3, label: 'three', qty: 3 }]);
      expect(outcomes.map(shownOutcome)).toEqual([applied, failed('PermanentError'), applied]);
      await expectRecords(p, { 1: { label: 'one', qty: 1 }, 2: null, 3: { label: 'three', qty: 3 } });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['required'])('fails a create without a required value alone (PermanentError)', async () => {
    const p = await ctx.prepare({ id: 'required-missing', seed: [{ key: 1, label: 'one', qty: 1 }], uses: ['required'] });
    try {
      // An update may leave the required column out (it keeps its value); a create may not.
      const outcomes = await applyGroup(p, [{ key: 1, label: 'one again' }, { key: 2, label: 'no qty' }, { key: 3, label: 'three', qty: 3 }]);
      expect(outcomes.map(shownOutcome)).toEqual([applied, failed('PermanentError'), applied]);
      await expectRecords(p, { 1: { label: 'one again', qty: 1 }, 2: null, 3: { label: 'three', qty: 3 } });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['parent'])('fails an item whose parent does not exist (yet) alone (TransitiveError)', async () => {
    const p = await ctx.prepare({ id: 'transitive-item-error', seed: [{ key: 1, label: 'parent', qty: 1 }], uses: ['parent'] });
    try {
      const outcomes = await applyGroup(p, [
        { key: 2, label: 'child', qty: 2, parent: 1 }, { key: 3, label: 'orphan', qty: 3, parent: 99 }, { key: 4, label: 'child too', qty: 4, parent: 1 },
      ]);
      expect(outcomes.map(shownOutcome)).toEqual([applied, failed('TransitiveError'), applied]);
      await expectRecords(p, { 2: { label: 'child', parent: 1 }, 3: null, 4: { label: 'child too', parent: 1 } });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt([])('fails a message whose key value is null or missing alone (PermanentError)', async () => {
    const p = await ctx.prepare({ id: 'missing-key', seed: [], uses: [] });
    try {
      const outcomes = await applyGroup(p, [{ keyless: 'null', label: 'null key', qty: 1 }, { keyless: 'missing', label: 'no key', qty: 2 }, { key: 3, label: 'three', qty: 3 }]);
      expect(outcomes.map(shownOutcome)).toEqual([failed('PermanentError'), failed('PermanentError'), applied]);
      expect((outcomes[0] as { error: Error }).error.message).toMatch(/key/i);
      await expectRecords(p, { 3: { label: 'three', qty: 3 } });
    } finally {
      await p.done();
    }
  });
}
