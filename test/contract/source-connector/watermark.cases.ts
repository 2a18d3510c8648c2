import { changesOf, type ContractContext, contractJob, expectedChanges, expectNothingRead, readRun, records } from './context';

/** Only what changed after the watermark (reaching back `lookbackSeconds`), and only what the job filter keeps. */
export function watermarkCases(ctx: ContractContext): void {
  ctx.caseIt(['watermark'])('reads only the changes after the watermark; nothing when none is after it', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'after-watermark', seed, uses: ['watermark'] });
    try {
      const source = p.source();
      const run = await readRun(source, p, contractJob(p), p.watermark(3));
      expect(changesOf(p, run)).toEqual(expectedChanges(p, seed.slice(3)));
      expectNothingRead(await readRun(source, p, contractJob(p), p.watermark(5)), { emptySource: false });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['lookback', 'watermark'])('reaches lookbackSeconds behind the watermark (and no further)', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'lookback', seed, uses: ['lookback', 'watermark'] });
    try {
      // Watermark at second 5, 2 s of lookback: the changes after second 3 are read again.
      const run = await readRun(p.source(), p, contractJob(p, { lookbackSeconds: 2 }), p.watermark(5));
      expect(changesOf(p, run)).toEqual(expectedChanges(p, seed.slice(3)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['filter'])('honours the job filter, on a field the mapping does not map', async () => {
    const seed = records([1, 2, 3, 4, 5]).map((r) => ({ ...r, group: r.key % 2 === 1 ? ('keep' as const) : ('drop' as const) }));
    const p = await ctx.prepare({ id: 'filter', seed, uses: ['filter'] });
    try {
      const run = await readRun(p.source(), p, contractJob(p, { filter: true }), p.watermark(null));
      expect(changesOf(p, run)).toEqual(expectedChanges(p, seed.filter((r) => r.group === 'keep')));
    } finally {
      await p.done();
    }
  });
}
