import { JobService } from '../../../src/detect/job-service';
import { ConfigError } from '../../../src/platform/errors';
import { Job, JobActionType } from '../../../src/model/job';
import type { WatermarkRecord, WatermarkStore } from '../../../src/model/watermark-record';

/** A Map-backed WatermarkStore that counts its reads (pure unit test, no tables). */
class InMemoryWatermarkStore implements WatermarkStore {
  readonly rows = new Map<string, WatermarkRecord>();
  bulkReads = 0;
  singleReads = 0;

  async getWatermarkByJobName(jobName: string): Promise<WatermarkRecord> {
    this.singleReads += 1;
    return this.rows.get(jobName) ?? { jobName, watermark: null, lastCronRun: null, persisted: false, resync: null };
  }

  async getAllWatermarks(): Promise<Map<string, WatermarkRecord>> {
    this.bulkReads += 1;
    return new Map(this.rows);
  }

  async updateWatermarkByJobName(jobName: string, watermark: string | null, lastCronRun: Date | null): Promise<void> {
    this.rows.set(jobName, { jobName, watermark, lastCronRun, persisted: true, resync: null });
  }

  async resetWatermark(jobName: string, to?: string): Promise<void> {
    const row = this.rows.get(jobName);
    if (row) this.rows.set(jobName, { ...row, watermark: to ?? null });
  }
}

function job(name: string, overrides: Partial<Job> = {}): Job {
  return {
    name,
    order: 100,
    schedule: '0 */5 * * * *',
    enabled: true,
    source: 'crm',
    target: 'bc',
    mapping: 'accounts',
    priority: 'normal',
    watermark: { type: 'datetime', field: 'modifiedon' },
    filter: [],
    action: JobActionType.NewUpdate,
    skipOutdatedMessages: false,
    skipUnchanged: false,
    pageSize: 500,
    lookbackSeconds: 0,
    ...overrides,
  };
}

const at = (iso: string) => new Date(iso);
const names = (jobs: Job[]) => jobs.map((j) => j.name);

function setup(jobs: Job[], timeZone = 'UTC') {
  const store = new InMemoryWatermarkStore();
  let current = jobs;
  const service = new JobService({ jobs: () => current, watermarks: store, timeZone });
  return { store, service, replaceJobs: (next: Job[]) => (current = next) };
}

describe('JobService.getJobsToRun', () => {
  it('returns never-run enabled jobs by order, then name, with one bulk read', async () => {
    const { store, service } = setup([
      job('zeta', { order: 1 }),
      job('beta', { order: 2 }),
      job('alpha', { order: 2 }),
      job('Alpha', { order: 2 }),
      job('off', { order: 0, enabled: false }),
      job('first', { order: -5 }),
    ]);
    expect(names(await service.getJobsToRun(at('2026-01-02T10:03:00Z')))).toEqual(['first', 'zeta', 'Alpha', 'alpha', 'beta']);
    expect(store.bulkReads).toBe(1);
    expect(store.singleReads).toBe(0);
  });

  it('decides by LastCronRun: occurrence in (LastCronRun, now]', async () => {
    const { store, service } = setup([job('ran-before-occurrence'), job('ran-at-occurrence'), job('ran-in-future'), job('row-without-run')]);
    await store.updateWatermarkByJobName('ran-before-occurrence', 'w', at('2026-01-02T10:04:59Z'));
    await store.updateWatermarkByJobName('ran-at-occurrence', 'w', at('2026-01-02T10:05:00Z'));
    await store.updateWatermarkByJobName('ran-in-future', 'w', at('2026-01-02T11:00:00Z'));
    await store.updateWatermarkByJobName('row-without-run', 'w', null);
    await store.updateWatermarkByJobName('deleted-job', 'w', null);
    expect(names(await service.getJobsToRun(at('2026-01-02T10:05:00Z')))).toEqual(['ran-before-occurrence', 'row-without-run']);
    expect(names(await service.getJobsToRun(at('2026-01-02T10:10:00Z')))).toEqual([
      'ran-at-occurrence',
      'ran-before-occurrence',
      'row-without-run',
    ]);
  });

  it('never returns disabled jobs, even when overdue', async () => {
    const { store, service } = setup([job('off', { enabled: false })]);
    await store.updateWatermarkByJobName('off', null, at('2020-01-01T00:00:00Z'));
    expect(await service.getJobsToRun(at('2026-01-02T10:05:00Z'))).toEqual([]);
    expect(store.bulkReads).toBe(0);
  });

  it('sees a reloaded job list on the next call', async () => {
    const { service, replaceJobs } = setup([job('a')]);
    expect(names(await service.getJobsToRun(at('2026-01-02T10:05:00Z')))).toEqual(['a']);
    replaceJobs([job('b'), job('a', { enabled: false })]);
    expect(names(await service.getJobsToRun(at('2026-01-02T10:05:00Z')))).toEqual(['b']);
  });

  it('rejects an invalid schedule with a ConfigError naming the job', async () => {
    const { service } = setup([job('five-fields', { schedule: '*/5 * * * *' })]);
    const err = await service.getJobsToRun(at('2026-01-02T10:05:00Z')).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      'job "five-fields": schedule: invalid NCRONTAB "*/5 * * * *": expected 6 fields (second minute hour day month weekday), got 5',
    );
  });

  /** Drives the service like a timer: a tick every 15 minutes; a due job "runs" and records LastCronRun = now. */
  async function runTicks(service: JobService, store: InMemoryWatermarkStore, from: string, to: string): Promise<string[]> {
    const runs: string[] = [];
    for (let t = at(from).getTime(); t <= at(to).getTime(); t += 15 * 60_000) {
      const now = new Date(t);
      for (const due of await service.getJobsToRun(now)) {
        runs.push(now.toISOString());
        await store.updateWatermarkByJobName(due.name, null, now);
      }
    }
    return runs;
  }

  it('runs a daily 02:00 Europe/Berlin job once a day across the spring-forward change', async () => {
    const { store, service } = setup([job('nightly', { schedule: '0 0 2 * * *' })], 'Europe/Berlin');
    await store.updateWatermarkByJobName('nightly', null, at('2026-03-26T12:00:00Z'));
    expect(await runTicks(service, store, '2026-03-26T12:00:00Z', '2026-03-31T12:00:00Z')).toEqual([
      '2026-03-27T01:00:00.000Z', // 02:00 CET
      '2026-03-28T01:00:00.000Z',
      '2026-03-29T01:00:00.000Z', // 02:00 does not exist that night: runs at 03:00 CEST
      '2026-03-30T00:00:00.000Z', // 02:00 CEST
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  it('runs a daily 02:00 Europe/Berlin job once a day across the fall-back change', async () => {
    const { store, service } = setup([job('nightly', { schedule: '0 0 2 * * *' })], 'Europe/Berlin');
    await store.updateWatermarkByJobName('nightly', null, at('2026-10-23T12:00:00Z'));
    expect(await runTicks(service, store, '2026-10-23T12:00:00Z', '2026-10-27T12:00:00Z')).toEqual([
      '2026-10-24T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:00:00.000Z', // first 02:00 (CEST); the repeated 02:00 CET hour does not run again
      '2026-10-26T01:00:00.000Z', // 02:00 CET
      '2026-10-27T01:00:00.000Z',
    ]);
  });
});

describe('JobService.nextRun', () => {
  it.each([
    ['0 */5 * * * *', 'UTC', '2026-01-02T10:03:00Z', '2026-01-02T10:05:00.000Z'],
    ['0 */5 * * * *', 'UTC', '2026-01-02T10:05:00Z', '2026-01-02T10:10:00.000Z'],
    ['0 0 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-29T01:00:00.000Z'],
    ['0 0 2 * * *', 'Europe/Berlin', '2026-03-29T12:00:00Z', '2026-03-30T00:00:00.000Z'],
  ])('%s in %s after %s → %s', (schedule, zone, now, expected) => {
    const { service } = setup([], zone);
    expect(service.nextRun(job('j', { schedule }), at(now))?.toISOString()).toBe(expected);
  });

  it('is null for a disabled job', () => {
    const { service } = setup([]);
    expect(service.nextRun(job('off', { enabled: false }), at('2026-01-02T10:03:00Z'))).toBeNull();
  });

  it('rejects an invalid schedule with a ConfigError naming the job', () => {
    const { service } = setup([]);
    expect(() => service.nextRun(job('bad', { schedule: '0 0 25 * * *' }), at('2026-01-02T10:03:00Z'))).toThrow(
      new ConfigError('job "bad": schedule: invalid NCRONTAB "0 0 25 * * *": Constraint error, got value 25 expected range 0-23'),
    );
  });
});

describe('JobService construction', () => {
  it('rejects an unknown time zone', () => {
    const store = new InMemoryWatermarkStore();
    expect(() => new JobService({ jobs: () => [], watermarks: store, timeZone: 'Europe/Berlinn' })).toThrow(
      new ConfigError('timeZone: unknown time zone "Europe/Berlinn"'),
    );
  });
});
