import { recentRunRows } from '../../../../src/host/status/recent-runs';
import { run } from './status-fixture';

/** Runs that found nothing no longer push a real run off "Recent runs". */
describe('recent run rows', () => {
  const at = (second: number) => new Date(Date.parse('2026-06-01T10:00:00Z') + second * 1000).toISOString();
  const noOp = (job: string, second: number) => run(job, at(second), { detected: 0, sentByQueue: {}, timeStamps: 0 });

  it('collapses a job’s no-op runs since its last run that did something into one row', () => {
    // Newest first: three jobs ticking every 10 s, one 2,000-row run of A at second 0.
    const runs = [];
    for (let s = 300; s > 0; s -= 10) runs.push(noOp('A', s), noOp('B', s - 1), noOp('C', s - 2));
    runs.push(run('A', at(0), { detected: 2000, sentByQueue: { sbqhigh: 2000 } }), noOp('A', -10));
    const rows = recentRunRows(runs, 20);
    expect(rows.map((r) => [r.job, r.startedAt, r.detected, r.collapsed ?? null])).toEqual([
      ['A', at(300), 0, { runs: 30, since: at(10) }],
      ['B', at(299), 0, { runs: 30, since: at(9) }],
      ['C', at(298), 0, { runs: 30, since: at(8) }],
      ['A', at(0), 2000, null],
      ['A', at(-10), 0, null],
    ]);
  });

  it('keeps failed, stopped and interrupted runs as rows of their own, and stops at the limit', () => {
    const rows = recentRunRows(
      [noOp('A', 50), run('A', at(40), { outcome: 'Failed', detected: 0, sentByQueue: {} }), noOp('A', 30), run('A', at(20), { detected: 0, sentByQueue: {}, stoppedEarly: 'timeBudget' }), noOp('A', 10)],
      4,
    );
    expect(rows.map((r) => [r.startedAt, r.outcomeText, r.collapsed?.runs ?? 1])).toEqual([
      [at(50), 'Succeeded', 1],
      [at(40), 'Failed', 1],
      [at(30), 'Succeeded', 1],
      [at(20), 'Stopped (time budget)', 1],
    ]);
  });
});
