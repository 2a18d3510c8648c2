import { BusError, type QueueCounts } from '../../../src/bus/message-bus';
import type { Job } from '../../../src/model/job';
import type { WatermarkRecord } from '../../../src/model/watermark-record';
import { jobOverdueSeconds, sampleGauges, startGaugeSampler, watermarkLagSeconds } from '../../../src/runtime/gauges';
import { InMemoryMetrics } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { recordingLog } from '../telemetry/telemetry-stubs';
import { DEFAULT_QUEUES, queueRoles } from '../../../src/platform/queue-topology';

const NOW = new Date('2026-05-01T12:00:00Z');

function job(name: string, type: string, schedule = '*/5 * * * *'): Job {
  return { name, schedule, watermark: { type, field: 'modified_at' } } as Job;
}

function record(jobName: string, watermark: string | null, lastCronRun: Date | null = null): WatermarkRecord {
  return { jobName, watermark, lastCronRun, persisted: true, resync: null };
}

describe('jobOverdueSeconds', () => {
  it('is 0 until the run after the last complete read is due, then counts from that moment', () => {
    const read = new Date('2026-05-01T11:50:30Z'); // next run due 11:55:00 on */5
    expect(jobOverdueSeconds('*/5 * * * *', read, new Date('2026-05-01T11:54:59Z'))).toBe(0);
    expect(jobOverdueSeconds('*/5 * * * *', read, new Date('2026-05-01T11:55:00Z'))).toBe(0);
    expect(jobOverdueSeconds('*/5 * * * *', read, NOW)).toBe(300);
  });

  it('reads the schedule in the given zone', () => {
    // Daily at 02:00 in Berlin (UTC+2 in May) is 00:00 UTC: a read at 2026-04-30T00:00Z is next due 2026-05-01T00:00Z.
    expect(jobOverdueSeconds('0 2 * * *', new Date('2026-04-30T00:00:00Z'), NOW, 'Europe/Berlin')).toBe(12 * 3600);
    // In UTC the run after that read was due at 2026-04-30T02:00Z.
    expect(jobOverdueSeconds('0 2 * * *', new Date('2026-04-30T00:00:00Z'), NOW)).toBe(34 * 3600);
  });

  it('is null before the first complete read and for a schedule that does not parse', () => {
    expect(jobOverdueSeconds('*/5 * * * *', null, NOW)).toBeNull();
    expect(jobOverdueSeconds('every five minutes', new Date('2026-05-01T11:00:00Z'), NOW)).toBeNull();
  });
});

describe('watermarkLagSeconds', () => {
  it.each([
    ['datetime', '2026-05-01T11:58:30.1234567Z', 90],
    [' DateTime ', '2026-05-01T11:59:59.6000000Z', 0],
    ['timestamp', '2026-05-01T12:00:10.0000000Z', -10],
  ])('%s %s → %d s', (type, watermark, lag) => {
    expect(watermarkLagSeconds(type, watermark, NOW)).toBe(lag);
  });

  it.each([
    ['datetime', null],
    ['datetime', '   '],
    ['datetime', '0001-01-01T00:00:00.0000000Z'],
    ['datetime', 'not a date'],
    ['date', '2026-05-01'],
    ['number', '42'],
    ['unknown', '2026-05-01T11:00:00Z'],
  ])('%s %s → null', (type, watermark) => {
    expect(watermarkLagSeconds(type, watermark, NOW)).toBeNull();
  });
});

describe('queueRoles', () => {
  it('names each queue’s role, work queues first', () => {
    expect(queueRoles(DEFAULT_QUEUES)).toEqual([
      { queue: 'sbqhigh', role: 'work' },
      { queue: 'sbqnormal', role: 'work' },
      { queue: 'sbqlow', role: 'work' },
      { queue: 'sbqtransitivehigh', role: 'transitive' },
      { queue: 'sbqtransitivenormal', role: 'transitive' },
      { queue: 'sbqtransitivelow', role: 'transitive' },
      { queue: 'sbqignored', role: 'ignored' },
    ]);
  });
});

describe('sampleGauges', () => {
  const counts: Record<string, QueueCounts> = {
    sbqhigh: { active: 5, scheduled: 1, deadLetter: 2 },
    sbqtransitivehigh: { active: 3, scheduled: 0, deadLetter: 0 },
  };
  const bus = {
    counts: async (queue: string) => {
      if (queue === 'sbqlow') throw new BusError('Unavailable', 'bus is down');
      return counts[queue] ?? { active: 0, scheduled: 0, deadLetter: 0 };
    },
  };

  it('tracks the lag of datetime jobs and the depth of every queue by state', async () => {
    const metrics = new InMemoryMetrics();
    const log = recordingLog();
    const sample = await sampleGauges({
      jobs: () => [job('accounts', 'datetime'), job('numbers', 'number'), job('never-run', 'datetime')],
      watermarks: { getAllWatermarks: async () => new Map([['accounts', record('accounts', '2026-05-01T11:00:00.0000000Z')], ['numbers', record('numbers', '7')]]) },
      bus,
      queues: DEFAULT_QUEUES,
      metrics,
      clock: { now: () => NOW },
      log,
    });
    expect(sample.lagSeconds).toEqual({ accounts: 3600 });
    expect(metrics.points.filter((p) => p.name === 'WatermarkLagSeconds').map((p) => [p.value, p.dimensions])).toEqual([[3600, { job: 'accounts' }]]);
    const depth = (queue: string, state: string) =>
      metrics.points.filter((p) => p.name === 'QueueDepth' && p.dimensions.queue === queue && p.dimensions.state === state).map((p) => [p.value, p.dimensions.role]);
    expect(depth('sbqhigh', 'active')).toEqual([[5, 'work']]);
    expect(depth('sbqhigh', 'scheduled')).toEqual([[1, 'work']]);
    expect(depth('sbqhigh', 'deadLetter')).toEqual([[2, 'work']]);
    expect(depth('sbqtransitivehigh', 'active')).toEqual([[3, 'transitive']]);
    expect(depth('sbqlow', 'active')).toEqual([]);
    expect(sample.depths.map((d) => d.queue)).toEqual(['sbqhigh', 'sbqnormal', 'sbqtransitivehigh', 'sbqtransitivenormal', 'sbqtransitivelow', 'sbqignored']);
    expect(log.lines).toEqual(['warn depth of queue sbqlow not sampled: bus is down']);
  });

  it('counts the open conflicts of every configured pair, 0 included, resolved ones not; a failed read is logged', async () => {
    const metrics = new InMemoryMetrics();
    const log = recordingLog();
    const conflict = (pair: string, keyA: string, resolution?: 'a' | 'b') => ({ pair, keyA, keyB: keyA, fields: ['x'], a: { values: {}, tracker: null }, b: { values: {}, tracker: null }, detectedAt: NOW.toISOString(), ...(resolution ? { resolution } : {}) });
    const base = { jobs: () => [], watermarks: { getAllWatermarks: async () => new Map() }, bus, queues: DEFAULT_QUEUES, metrics, clock: { now: () => NOW }, log };
    const sample = await sampleGauges({
      ...base,
      pairs: { names: () => ['accounts', 'profiles'], conflicts: { listConflicts: async () => [conflict('accounts', 'A-1'), conflict('accounts', 'A-2'), conflict('accounts', 'A-3', 'b')] } },
    });
    expect(sample.openConflicts).toEqual({ accounts: 2, profiles: 0 });
    expect(metrics.points.filter((p) => p.name === 'PairConflictsOpen').map((p) => [p.value, p.dimensions])).toEqual([[2, { pair: 'accounts' }], [0, { pair: 'profiles' }]]);
    const failed = await sampleGauges({ ...base, pairs: { names: () => ['accounts'], conflicts: { listConflicts: async () => { throw new Error('table unavailable'); } } } });
    expect(failed.openConflicts).toBeUndefined();
    expect(log.lines).toContain('warn open conflicts not sampled: table unavailable');
  });

  it('tracks how late each enabled job is against its schedule, whatever its watermark type, and 0 over a quiet source', async () => {
    const metrics = new InMemoryMetrics();
    const sample = await sampleGauges({
      jobs: () => [job('quiet', 'datetime'), job('stuck', 'number'), job('never-read', 'datetime'), { ...job('paused', 'datetime'), enabled: false }],
      watermarks: {
        getAllWatermarks: async () =>
          new Map([
            // Newest change a month old, but read to the end 2 minutes ago: on schedule.
            ['quiet', record('quiet', '2026-04-01T00:00:00.0000000Z', new Date('2026-05-01T11:58:00Z'))],
            // Last read to the end at 10:00: the run due at 10:05 has not finished a read since.
            ['stuck', record('stuck', '7', new Date('2026-05-01T10:00:00Z'))],
            ['paused', record('paused', null, new Date('2026-04-01T00:00:00Z'))],
          ]),
      },
      bus,
      queues: DEFAULT_QUEUES,
      metrics,
      clock: { now: () => NOW },
      log: recordingLog(),
    });
    expect(sample.overdueSeconds).toEqual({ quiet: 0, stuck: 6900 });
    expect(metrics.points.filter((p) => p.name === 'JobOverdueSeconds').map((p) => [p.value, p.dimensions])).toEqual([
      [0, { job: 'quiet' }],
      [6900, { job: 'stuck' }],
    ]);
  });

  it('gives a disabled job no lag: nothing reads for it, and its aging watermark would raise the lag alert for ever', async () => {
    const metrics = new InMemoryMetrics();
    const old = '2026-04-01T00:00:00.0000000Z';
    const sample = await sampleGauges({
      jobs: () => [job('accounts', 'datetime'), { ...job('paused', 'datetime'), enabled: false }],
      watermarks: { getAllWatermarks: async () => new Map([['accounts', record('accounts', old)], ['paused', record('paused', old)]]) },
      bus,
      queues: DEFAULT_QUEUES,
      metrics,
      clock: { now: () => NOW },
      log: recordingLog(),
    });
    expect(sample.lagSeconds).toEqual({ accounts: 30 * 86_400 + 12 * 3_600 });
    expect(metrics.points.filter((p) => p.name === 'WatermarkLagSeconds').map((p) => p.dimensions.job)).toEqual(['accounts']);
  });

  it('still samples queue depths when the watermarks cannot be read', async () => {
    const metrics = new InMemoryMetrics();
    const log = recordingLog();
    await sampleGauges({
      jobs: () => [job('accounts', 'datetime')],
      watermarks: { getAllWatermarks: () => Promise.reject(new Error('table unavailable')) },
      bus: { counts: async () => ({ active: 1, scheduled: 0, deadLetter: 0 }) },
      queues: DEFAULT_QUEUES,
      metrics,
      clock: { now: () => NOW },
      log,
    });
    expect(log.lines).toEqual(['warn watermark lag not sampled: table unavailable']);
    expect(metrics.sum('QueueDepth', { state: 'active' })).toBe(7);
  });
});

describe('startGaugeSampler', () => {
  it('samples at once and then every interval until stopped', async () => {
    const clock = new FakeClock('2026-05-01T12:00:00Z');
    const metrics = new InMemoryMetrics();
    const stop = startGaugeSampler(
      {
        jobs: () => [job('accounts', 'datetime')],
        watermarks: { getAllWatermarks: async () => new Map([['accounts', record('accounts', '2026-05-01T12:00:00.0000000Z')]]) },
        bus: { counts: async () => ({ active: 0, scheduled: 0, deadLetter: 0 }) },
        queues: DEFAULT_QUEUES,
        metrics,
        clock,
        log: recordingLog(),
      },
      60_000,
    );
    await clock.advance(0);
    await clock.advance(120_000);
    stop();
    await clock.advance(120_000);
    expect(metrics.points.filter((p) => p.name === 'WatermarkLagSeconds').map((p) => p.value)).toEqual([0, 60, 120]);
  });
});

describe('startGaugeSampler with a consumer of its samples', () => {
  it('hands each sample on, says whether the lag was read, and logs what the consumer throws without stopping', async () => {
    const clock = new FakeClock('2026-05-01T12:00:00Z');
    const log = recordingLog();
    let readable = true;
    const seen: Array<{ lagSampled: boolean; depths: number }> = [];
    const stop = startGaugeSampler(
      {
        jobs: () => [job('accounts', 'datetime')],
        watermarks: {
          getAllWatermarks: async () => {
            if (!readable) throw new Error('table unavailable');
            return new Map([['accounts', record('accounts', '2026-05-01T12:00:00.0000000Z')]]);
          },
        },
        bus: { counts: async () => ({ active: 0, scheduled: 0, deadLetter: 0 }) },
        queues: DEFAULT_QUEUES,
        metrics: new InMemoryMetrics(),
        clock,
        log,
      },
      15_000,
      async (sample) => {
        seen.push({ lagSampled: sample.lagSampled, depths: sample.depths.length });
        if (seen.length === 2) throw new Error('consumer broke');
      },
    );
    await clock.advance(0);
    readable = false;
    await clock.advance(15_000);
    readable = true;
    await clock.advance(15_000);
    stop();
    const queues = queueRoles(DEFAULT_QUEUES).length;
    expect(seen).toEqual([
      { lagSampled: true, depths: queues },
      { lagSampled: false, depths: queues },
      { lagSampled: true, depths: queues },
    ]);
    expect(log.lines).toEqual(['warn watermark lag not sampled: table unavailable', 'warn gauge sample not handled: consumer broke']);
  });
});
