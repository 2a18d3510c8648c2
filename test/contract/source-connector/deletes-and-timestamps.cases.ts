import { JobActionType } from '../../../src/model/job';
import { type ContractContext, contractJob, keyNumber, readRun, records } from './context';

/** Removed records become `Delete` messages; a source that can tell a timestamp-only change reports it and moves on from it. */
export function deletesAndTimestampCases(ctx: ContractContext): void {
  ctx.caseIt(['deletes'])('sends a removed record as a Delete message with its source and target key', async () => {
    const seed = records([1, 2, 3]).map((r) => (r.key === 2 ? { ...r, deleted: true } : r));
    const p = await ctx.prepare({ id: 'deletes', seed, uses: ['deletes'] });
    try {
      const run = await readRun(p.source(), p, contractJob(p, { softDelete: true }), p.watermark(0));
      const shown = run.messages.map((m) => [keyNumber(p, m.sourceKey), m.action, m.targetKey]).sort(([a], [b]) => Number(a) - Number(b));
      expect(shown).toEqual([
        [1, JobActionType.NewUpdate, { ref: p.keyValue(1) }],
        [2, JobActionType.Delete, { ref: p.keyValue(2) }],
        [3, JobActionType.NewUpdate, { ref: p.keyValue(3) }],
      ]);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['timeStamps'])('ends a run on a timestamp-only change past its changes, from which the next run continues', async () => {
    const p = await ctx.prepare({ id: 'timestamps', seed: records([1, 2, 3]), uses: ['timeStamps'] });
    try {
      const source = p.source();
      const watermark = p.watermark(null);
      const first = await readRun(source, p, contractJob(p), watermark);
      const last = first.pages.at(-1)!;
      expect(last.timeStamps).toHaveLength(1);
      expect(last.lastChangeTracker).toBe(last.timeStamps[0].changeTracker);
      // The watermark ends on the timestamp change: the next run starts from there.
      expect(watermark.value).toBe(last.timeStamps[0].changeTracker);
      const second = await readRun(source, p, contractJob(p), watermark);
      expect(second.messages).toEqual([]);
      expect(watermark.value).toBe(second.pages.at(-1)?.timeStamps[0]?.changeTracker);
      expect(watermark.value).not.toBe(last.timeStamps[0].changeTracker);
    } finally {
      await p.done();
    }
  });
}
