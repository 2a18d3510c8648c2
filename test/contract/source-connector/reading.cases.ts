import { JobActionType } from '../../../src/model/job';
import { changesOf, type ContractContext, contractJob, expectedChanges, expectNothingRead, readRun, records } from './context';

/** A first run reads every record once, in change-tracker order, in pages of `pageSize`, serialized by the mapping. */
export function readingCases(ctx: ContractContext): void {
  ctx.caseIt([])('gives every record once, in change-tracker order across pages', async () => {
    // Two records share a change tracker; the order of the others differs from their keys'.
    const seed = records([3, 1, 4, 2, 5], [4, 2, 2, 1, 6]);
    const p = await ctx.prepare({ id: 'in-order', seed, uses: [] });
    try {
      const run = await readRun(p.source(), p, contractJob(p), p.watermark(null));
      expect(changesOf(p, run).sort(([a], [b]) => a - b)).toEqual(expectedChanges(p, seed).sort(([a], [b]) => a - b));
      expect(run.pages.at(-1)?.hasMore).toBe(false);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['pageSize'])('pages hold pageSize rows; hasMore is false on the last; lastChangeTracker is the page\'s last change', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'page-size', seed, uses: ['pageSize'] });
    try {
      const run = await readRun(p.source(), p, contractJob(p, { pageSize: 2 }), p.watermark(null));
      expect(run.pages.map((page) => [page.rowCount, page.messages.length, page.hasMore])).toEqual([[2, 2, true], [2, 2, true], [1, 1, false]]);
      expect(changesOf(p, run)).toEqual(expectedChanges(p, seed));
      // Where records carry their own trackers, each page ends on its last record's.
      expect(run.pages.slice(0, 2).map((page) => page.lastChangeTracker)).toEqual([p.trackerOf(seed[1]), p.trackerOf(seed[3])]);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt([])('serializes each record by the mapping: source key, target key, mapped fields only, change tracker', async () => {
    const seed = [{ key: 1, at: 1, label: 'alpha', group: 'drop' as const }, { key: 2, at: 2, label: 'beta' }];
    const p = await ctx.prepare({ id: 'serialized', seed, uses: [] });
    try {
      const run = await readRun(p.source(), p, contractJob(p), p.watermark(null));
      const byKey = [...run.messages].sort((a, b) => a.sourceKey.localeCompare(b.sourceKey));
      const expected = seed.map((r) => ({
        jobName: 'contract', action: JobActionType.NewUpdate, sourceKey: String(p.keyValue(r.key)), targetKey: { ref: p.keyValue(r.key) },
        fields: { ref: p.keyValue(r.key), label: r.label.toUpperCase() }, changeTracker: p.trackerOf(r),
      })).sort((a, b) => a.sourceKey.localeCompare(b.sourceKey));
      expect(byKey).toEqual(expected.map((e) => expect.objectContaining(e)));
      for (const m of byKey) expect(Object.keys(m.fields).sort()).toEqual(['label', 'ref']);
      expect(new Set(byKey.map((m) => m.correlationId)).size).toBe(2);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt([])('reads an empty source as no change: no page, or one empty page as the port documents', async () => {
    const p = await ctx.prepare({ id: 'empty-source', seed: [], uses: [] });
    try {
      expectNothingRead(await readRun(p.source(), p, contractJob(p), p.watermark(null)), { emptySource: true });
    } finally {
      await p.done();
    }
  });
}
