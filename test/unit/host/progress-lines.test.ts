import { HostStats } from '../../../src/host/host-stats';
import { caughtUpLine, startProgress, stoppedLine } from '../../../src/host/progress';
import { FakeClock } from '../../support/fake-clock';

/**
 * Nothing said when all was done, and Ctrl-C printed no final line. The
 * progress printer says "all caught up" once each time the work queues drain after processing.
 */
const processed = (stats: HostStats, clock: FakeClock, n: number) => {
  for (let i = 0; i < n; i++) stats.recordProcessed({ at: clock.now(), queue: 'sbqhigh', jobName: 'j', outcome: 'Success', disposition: 'completed', messageId: `m${i}` });
};
const flush = () => new Promise((resolve) => setImmediate(resolve));

it('prints "all caught up" once when the queues drain after processing, and again after more work', async () => {
  const clock = new FakeClock('2026-01-01T10:00:00Z');
  const stats = new HostStats(clock.now());
  const lines: string[] = [];
  let idle = false;
  const stop = startProgress(stats, clock, (line) => lines.push(line), { everyMs: 1000, idle: async () => idle });
  await clock.advance(1000); // nothing processed yet: no caught-up line even though idle is asked for nothing
  processed(stats, clock, 3);
  await clock.advance(1000);
  await flush();
  idle = true;
  await clock.advance(1000);
  await flush();
  await clock.advance(1000);
  await flush();
  processed(stats, clock, 2);
  await clock.advance(1000);
  await flush();
  stop();
  expect(lines).toEqual([
    '[10:00:01] detected 0, sent 0 | processed 0',
    '[10:00:02] detected 0, sent 0 | processed 3 (sbqhigh 3 applied)',
    '[10:00:03] all caught up: 3 messages processed, the work queues are empty',
    '[10:00:05] detected 0, sent 0 | processed 5 (sbqhigh 5 applied)',
    '[10:00:05] all caught up: 5 messages processed, the work queues are empty',
  ]);
});

it('the Ctrl-C line says how long the host ran and what it did', () => {
  const clock = new FakeClock('2026-01-01T10:00:00Z');
  const stats = new HostStats(clock.now());
  processed(stats, clock, 4);
  expect(stoppedLine(stats, new Date('2026-01-01T10:03:05Z'))).toBe('stopped after 3m 05s: detected 0, sent 0 | processed 4 (sbqhigh 4 applied)');
  expect(caughtUpLine(stats, new Date('2026-01-01T10:00:09Z'))).toBe('[10:00:09] all caught up: 4 messages processed, the work queues are empty');
});
