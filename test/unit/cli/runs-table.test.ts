import { formatRunsTable, runAsJson } from '../../../src/cli/commands/runs';
import type { JobRunResult } from '../../../src/detect/job-run';

/** `highwater runs` says how a run ended, and its JSON names the job as ExecuteJob does. */
describe('highwater runs output', () => {
  const run = (over: Partial<JobRunResult>): JobRunResult => ({
    jobName: 'crm-accounts',
    trigger: 'scheduled',
    startedAt: new Date('2026-06-01T10:00:00.000Z'),
    endedAt: new Date('2026-06-01T10:00:00.500Z'),
    detected: 0,
    sentByQueue: {},
    timeStamps: 0,
    watermarkBefore: null,
    watermarkAfter: null,
    outcome: 'Succeeded',
    ...over,
  });
  const outcomes = (runs: JobRunResult[]) => formatRunsTable(runs).slice(1).map((line) => line.split(/\s{2,}/)[6]);

  it('shows a failed run with its retry time, a run stopped by the time budget, an interrupted run', () => {
    expect(
      outcomes([
        run({ outcome: 'Failed', error: 'boom', retryAt: new Date('2026-06-01T10:05:00.000Z') }),
        run({ outcome: 'Failed', error: 'boom' }),
        run({ stoppedEarly: 'timeBudget' }),
        run({ stoppedEarly: 'backpressure' }),
        run({ outcome: 'Failed', interrupted: true, error: 'the run did not record its end' }),
        run({}),
      ]),
    ).toEqual(['Failed (retrying at 2026-06-01 10:05:00Z)', 'Failed', 'Stopped (time budget)', 'Stopped (backpressure)', 'Interrupted', 'Succeeded']);
  });

  it('names the job `job` in JSON, keeps `jobName` as an alias, and writes retryAt as ISO text', () => {
    const json = runAsJson(run({ outcome: 'Failed', retryAt: new Date('2026-06-01T10:05:00.000Z') }));
    expect(json).toMatchObject({ job: 'crm-accounts', jobName: 'crm-accounts', retryAt: '2026-06-01T10:05:00.000Z', outcome: 'Failed' });
    expect(Object.keys(json)[0]).toBe('job');
  });
});
