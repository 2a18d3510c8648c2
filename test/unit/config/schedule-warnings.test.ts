import { finerThanLookWarnings, shortestGapMs } from '../../../src/config/schedule-warnings';

describe('schedules finer than the look for due jobs', () => {
  it.each([
    ['*/10 * * * * *', 10_000],
    ['*/2 * * * * *', 2_000],
    ['0 */5 * * * *', 300_000],
    ['0,1,30 * * * * *', 1_000],
    ['0 0 9 * * 1-5', 86_400_000],
  ])('the shortest gap of %s is %i ms', (expr, gap) => expect(shortestGapMs(expr)).toBe(gap));

  const entry = (schedule: string) => ({ file: 'jobs.yaml', path: 'jobs[1].schedule', name: 'orders', schedule });

  it('warns about a schedule with any gap shorter than the look, naming both schedules and gaps', () => {
    expect(finerThanLookWarnings([entry('0,1,30 * * * * *'), entry('*/10 * * * * *'), entry('0 * * * * *')], '*/10 * * * * *')).toEqual([
      {
        file: 'jobs.yaml',
        path: 'jobs[1].schedule',
        entry: 'orders',
        message:
          '"0,1,30 * * * * *" is due every 1 s, more often than GetChangesSchedule "*/10 * * * * *" (every 10 s): ' +
          'the Functions app looks for due jobs only on GetChangesSchedule, so in Azure it runs at most once per look; the local host runs it on its own schedule',
      },
    ]);
  });

  it('says nothing when the look is as fine as every schedule', () => {
    expect(finerThanLookWarnings([entry('*/2 * * * * *')], '*/2 * * * * *')).toEqual([]);
  });
});
