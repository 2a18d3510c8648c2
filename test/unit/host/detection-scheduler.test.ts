import { JobService } from '../../../src/detect/job-service';
import type { JobRunResult } from '../../../src/detect/job-run';
import { DetectionScheduler } from '../../../src/host/detection-scheduler';
import type { Job } from '../../../src/model/job';
import type { WatermarkRecord, WatermarkStore } from '../../../src/model/watermark-record';
import { silentLogger } from '../../../src/telemetry/logger';
import { FakeClock } from '../../support/fake-clock';

const TICK = '*/10 * * * * *';

/** A scheduler whose tick records when it ran; stopped after each test. */
function scheduler(clock: FakeClock, jobSchedules?: () => readonly string[], tick?: () => Promise<void>) {
  const ticks: string[] = [];
  const s = new DetectionScheduler({
    schedule: TICK,
    timeZone: 'UTC',
    clock,
    log: silentLogger,
    tick: async (): Promise<JobRunResult[]> => {
      ticks.push(clock.now().toISOString().slice(11, 19));
      await tick?.();
      return [];
    },
    ...(jobSchedules ? { jobSchedules } : {}),
  });
  s.start();
  return { ticks, stop: () => s.stop() };
}

describe('DetectionScheduler', () => {
  it('ticks on the GetChanges schedule alone when no job is finer', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const { ticks, stop } = scheduler(clock, () => ['0 */5 * * * *']);
    await clock.advance(30_000);
    await stop();
    expect(ticks).toEqual(['00:00:10', '00:00:20', '00:00:30']);
  });

  it('also wakes at each occurrence of a job schedule finer than the tick', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const { ticks, stop } = scheduler(clock, () => ['*/2 * * * * *']);
    await clock.advance(10_000);
    await stop();
    expect(ticks).toEqual(['00:00:02', '00:00:04', '00:00:06', '00:00:08', '00:00:10']);
  });

  it('wakes at a job occurrence between two ticks, and skips a schedule that does not parse', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const { ticks, stop } = scheduler(clock, () => ['5 * * * * *', 'bogus']);
    await clock.advance(20_000);
    await stop();
    expect(ticks).toEqual(['00:00:05', '00:00:10', '00:00:20']);
  });

  it('keeps the GetChanges schedule while the configuration cannot be read', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const { ticks, stop } = scheduler(clock, () => {
      throw new Error('configuration not loaded yet');
    });
    await clock.advance(10_000);
    await stop();
    expect(ticks).toEqual(['00:00:10']);
  });

  it('runs a 2-second job at the next run the status page shows for it, every time', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const records = new Map<string, WatermarkRecord>();
    const watermarks = { getAllWatermarks: async () => new Map(records) } as unknown as WatermarkStore;
    const fast = { name: 'fast', schedule: '*/2 * * * * *', enabled: true, order: 1 } as Job;
    const jobs = new JobService({ jobs: () => [fast], watermarks, timeZone: 'UTC' });
    const runs: string[] = [];
    const shown: string[] = [];
    const { stop } = scheduler(
      clock,
      () => [fast.schedule],
      async () => {
        const now = clock.now();
        for (const job of await jobs.getJobsToRun(now)) {
          runs.push(now.toISOString());
          records.set(job.name, { jobName: job.name, watermark: null, lastCronRun: now, persisted: true, resync: null });
        }
        shown.push(jobs.nextRun(fast, now)?.toISOString() ?? 'none');
      },
    );
    await clock.advance(8_000);
    await stop();
    expect(runs).toEqual(['2026-01-01T00:00:02.000Z', '2026-01-01T00:00:04.000Z', '2026-01-01T00:00:06.000Z', '2026-01-01T00:00:08.000Z']);
    // Each "next run" shown after a run is the following run.
    expect(shown.slice(0, -1)).toEqual(runs.slice(1));
  });
});
