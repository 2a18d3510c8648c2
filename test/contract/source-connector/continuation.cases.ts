import { changesOf, type ContractContext, contractJob, expectedChanges, readRun, records, sortChanges } from './context';

/** A page's cursor continues the run after that page, within the run's bounds; a run stopped early holds nothing. */
export function continuationCases(ctx: ContractContext): void {
  ctx.caseIt(['watermark'])('continues a run from a page cursor after that page, within the run\'s bounds', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'cursor', seed, uses: ['watermark'] });
    try {
      const source = p.source();
      const job = contractJob(p, { pageSize: 2 });
      const first = await readRun(source, p, job, p.watermark(null), { stopAfter: 1 });
      expect(first.pages[0].hasMore).toBe(true);
      // A record changed after the run started lies beyond its bounds: the next run reads it.
      await p.add?.([{ key: 6, at: 9, label: 'record 6' }]);
      const rest = await readRun(source, p, job, p.watermark(null), { cursor: first.pages[0].cursor });
      expect(sortChanges(p, [...changesOf(p, first), ...changesOf(p, rest)])).toEqual(expectedChanges(p, seed));
      expect(changesOf(p, first).length).toBeGreaterThan(0);
      expect(changesOf(p, rest).length).toBeGreaterThan(0);
      // Nothing follows the last page of the run.
      const after = await readRun(source, p, job, p.watermark(null), { cursor: rest.pages.at(-1)!.cursor });
      expect(after.messages).toEqual([]);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['watermark'])('stops safely when the iteration stops early: nothing is held, close works, a new run reads everything', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'early-stop', seed, uses: ['watermark'] });
    try {
      const job = contractJob(p, { pageSize: 2 });
      const stopped = p.source();
      const first = await readRun(stopped, p, job, p.watermark(null), { stopAfter: 1 });
      expect(first.pages).toHaveLength(1);
      await p.released?.();
      await expect(stopped.close()).resolves.toBeUndefined();
      const again = await readRun(p.source(), p, job, p.watermark(null));
      expect(changesOf(p, again)).toEqual(expectedChanges(p, seed));
    } finally {
      await p.done();
    }
  });
}
