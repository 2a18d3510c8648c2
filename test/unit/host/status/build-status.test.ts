import { buildStatus } from '../../../../src/host/status/build-status';
import { METRIC_NAMES } from '../../../../src/telemetry/metrics';
import { NOW, statusFixture } from './status-fixture';

describe('buildStatus', () => {
  it('lists jobs in order with schedule, last run, next run, watermark, lag and last outcome', async () => {
    const f = statusFixture();
    const model = await buildStatus(f.sources, f.stats);
    expect(model.generatedAt).toBe('2026-06-01T10:30:30.000Z');
    expect(model.startedAt).toBe('2026-06-01T09:00:00.000Z');
    // Lag: how far behind its source (since its last complete read at 10:30:20), not now − watermark (300 s).
    expect(model.jobs.map((j) => [j.name, j.lastCronRun, j.nextRun, j.watermark, j.lagSeconds, j.lastRun?.outcome ?? null])).toEqual([
      ['crm-accounts-to-erp', '2026-06-01T10:30:20.000Z', '2026-06-01T10:30:40.000Z', '2026-06-01T10:25:30.0000000Z', 10, 'Succeeded'],
      ['crm-contacts-to-erp', null, '2026-06-01T10:35:00.000Z', null, null, 'Failed'],
      ['erp-numbers-to-crm', null, null, '17', null, null],
    ]);
    expect(model.jobs[1].lastRun).toEqual({
      job: 'crm-contacts-to-erp',
      trigger: 'scheduled',
      startedAt: '2026-06-01T10:30:21.000Z',
      durationMs: 250,
      detected: 3,
      sent: 0,
      outcome: 'Failed',
      outcomeText: 'Failed',
      error: 'source <crm> unavailable',
    });
    expect(model.jobs[0].watermarkAgeSeconds).toBe(300);
  });

  it('lag is how far a caught-up job is behind its source, however old its watermark', async () => {
    const f = statusFixture();
    // Caught up over a quiet source: the newest change is almost a year old, the last complete read 10 s.
    f.watermarks.set('crm-accounts-to-erp', { jobName: 'crm-accounts-to-erp', watermark: '2025-06-30T12:00:00.0000000Z', lastCronRun: new Date('2026-06-01T10:30:20Z'), persisted: true, resync: null });
    const [job] = (await buildStatus(f.sources, f.stats)).jobs;
    expect([job.lagSeconds, Math.round(job.watermarkAgeSeconds! / 86_400)]).toEqual([10, 336]);
  });

  it('a disabled response job says which jobs feed it', async () => {
    const f = statusFixture();
    f.jobs[0].responseJob = 'erp-numbers-to-crm';
    const model = await buildStatus(f.sources, f.stats);
    expect(model.jobs.map((j) => [j.name, j.fedBy])).toEqual([
      ['crm-accounts-to-erp', []],
      ['crm-contacts-to-erp', []],
      ['erp-numbers-to-crm', ['crm-accounts-to-erp']],
    ]);
  });

  it('recent failures include what waits in dead-letter subqueues, merged by error', async () => {
    const f = statusFixture();
    f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'crm-accounts-to-erp', outcome: 'Failed', disposition: 'deadLettered', messageId: 'x9', error: 'customer 7: 400 invalid vat' });
    const model = await buildStatus(f.sources, f.stats);
    expect(model.failures).toEqual([
      { error: 'customer 7: 400 invalid vat', count: 1, messages: 1, deadLettered: 1, lastAt: NOW.toISOString(), jobs: ['crm-accounts-to-erp'] },
      { error: 'MaxDeliveryCountExceeded', count: 0, messages: 0, deadLettered: 1, lastAt: null, jobs: ['crm-accounts-to-erp'] },
    ]);
  });

  it('failures that differ only in their particulars are one row, as the dead-letter groups are', async () => {
    const f = statusFixture();
    for (const [id, customer] of [['x1', 'C-10042'], ['x2', 'C-10043']]) {
      f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'crm-accounts-to-erp', outcome: 'Failed', disposition: 'retried', messageId: id, error: `customer ${customer}: parent missing` });
    }
    const model = await buildStatus(f.sources, f.stats);
    expect(model.failures.find((g) => g.error === 'customer C-<n>: parent missing')).toEqual({
      error: 'customer C-<n>: parent missing',
      count: 2,
      messages: 2,
      deadLettered: 0,
      lastAt: NOW.toISOString(),
      jobs: ['crm-accounts-to-erp'],
    });
  });

  it('a failure row keeps the error code beside the words, and groups the records it names', async () => {
    const f = statusFixture();
    for (const [id, key] of [['x1', '10042'], ['x2', '10043']]) {
      const error = `postgres connection "erp": upsert into "customers": a check constraint failed (23514): Failing row contains (${key}, null).`;
      f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'crm-accounts-to-erp', outcome: 'Failed', disposition: 'deadLettered', messageId: id, error });
    }
    const model = await buildStatus(f.sources, f.stats);
    expect(model.failures.map((g) => [g.error, g.count])).toContainEqual([
      'postgres connection "erp": upsert into "customers": a check constraint failed (23514): Failing row contains (<n>, null).',
      2,
    ]);
  });

  it('reports a job whose schedule is invalid, and still lists it', async () => {
    const f = statusFixture();
    f.jobs[1].schedule = '*/5 * * * *';
    const model = await buildStatus(f.sources, f.stats);
    expect(model.jobs[1].nextRun).toBeNull();
    expect(model.jobs[1].problem).toMatch(/^job "crm-contacts-to-erp": schedule: /);
  });

  it('shows queue depths per queue and side queue, and what this host processed from each', async () => {
    const f = statusFixture();
    f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'a', outcome: 'Success', disposition: 'completed', messageId: 'x1' });
    f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'a', outcome: 'Failed', disposition: 'abandoned', messageId: 'x2', error: 'boom' });
    f.stats.recordProcessed({ at: NOW, queue: 'sbqnormal', jobName: 'b', outcome: 'Transitive', disposition: 'transitive', messageId: 'x3', error: 'missing' });
    const model = await buildStatus(f.sources, f.stats);
    expect(model.queues.map((q) => [q.queue, q.role, q.active, q.deadLetter])).toEqual([
      ['sbqhigh', 'work', 4, 2],
      ['sbqnormal', 'work', 0, 0],
      ['sbqlow', 'work', 0, 0],
      ['sbqtransitivehigh', 'transitive', 0, 0],
      ['sbqtransitivenormal', 'transitive', 1, 0],
      ['sbqtransitivelow', 'transitive', 0, 0],
      ['sbqignored', 'ignored', 0, 0],
    ]);
    // x2 was released for redelivery: an attempt, not yet a message that ended.
    expect(model.queues[0].processed).toEqual({ Success: 1, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 0, Failed: 0 });
    expect(model.queues[0].attempts).toBe(2);
    expect(model.processedTotals).toEqual({ Success: 1, Superseded: 0, Deferred: 0, Transitive: 1, Ignored: 0, Failed: 0 });
    expect(model.attemptTotal).toBe(3);
    expect(model.failures.map((g) => [g.error, g.count, g.deadLettered])).toEqual([
      ['boom', 1, 0],
      ['missing', 1, 0],
      ['MaxDeliveryCountExceeded', 0, 1],
      ['customer 7: 400 invalid vat', 0, 1],
    ]);
  });

  it('a queue the bus cannot count is shown with its problem', async () => {
    const f = statusFixture();
    f.sources.bus.counts = async (queue) => {
      if (queue === 'sbqlow') throw new Error('queue sbqlow not found');
      return { active: 0, scheduled: 0, deadLetter: 0 };
    };
    const model = await buildStatus(f.sources, f.stats);
    expect(model.queues.find((q) => q.queue === 'sbqlow')).toMatchObject({ active: null, deadLetter: null, problem: 'queue sbqlow not found' });
  });

  it('recent runs come from the runs table, newest first', async () => {
    const f = statusFixture();
    const model = await buildStatus(f.sources, f.stats);
    expect(model.recentRuns.map((r) => [r.job, r.trigger, r.startedAt])).toEqual([
      ['crm-contacts-to-erp', 'scheduled', '2026-06-01T10:30:21.000Z'],
      ['crm-accounts-to-erp', 'scheduled', '2026-06-01T10:30:20.000Z'],
      ['crm-accounts-to-erp', 'manual', '2026-06-01T10:30:10.000Z'],
    ]);
  });

  it('falls back to the host’s own runs when the runs table cannot be read', async () => {
    const f = statusFixture();
    f.sources.runLog = { latest: () => Promise.reject(new Error('table down')) };
    f.stats.recordRun(f.runs[2]);
    f.stats.recordRun(f.runs[0]);
    const model = await buildStatus(f.sources, f.stats);
    expect(model.recentRuns.map((r) => r.startedAt)).toEqual(['2026-06-01T10:30:20.000Z', '2026-06-01T10:30:10.000Z']);
    expect(model.jobs[0].problem).toBe('runs not readable: table down');
  });

  it('a configuration that does not load is reported, the rest still shown', async () => {
    const f = statusFixture();
    f.sources.init = { ensureInitialized: () => Promise.reject(new Error('jobs.yaml: jobs[0].schedule: required')) };
    const model = await buildStatus(f.sources, f.stats);
    expect(model.configError).toBe('jobs.yaml: jobs[0].schedule: required');
    expect(model.jobs).toEqual([]);
    expect(model.queues).toHaveLength(7);
  });

  it('throughput: processed per minute by outcome over the last hour, from the metrics', async () => {
    const f = statusFixture();
    const at = (iso: string) => new Date(iso);
    const points = [
      [at('2026-06-01T10:30:05Z'), 'Success', 2],
      [at('2026-06-01T10:30:29Z'), 'Failed', 1],
      [at('2026-06-01T10:29:59Z'), 'Transitive', 1],
      [at('2026-06-01T09:31:00Z'), 'Ignored', 1],
      [at('2026-06-01T09:30:59Z'), 'Success', 100],
    ] as const;
    for (const [when, outcome, value] of points) f.metrics.points.push({ name: METRIC_NAMES.messagesProcessed, value, dimensions: { job: 'a', queue: 'sbqhigh', outcome }, at: when });
    f.metrics.points.push({ name: METRIC_NAMES.changesDetected, value: 7, dimensions: { job: 'a' }, at: at('2026-06-01T10:00:00Z') });
    const model = await buildStatus(f.sources, f.stats);
    expect(model.throughputSource).toBe('metrics');
    expect(model.throughput).toHaveLength(60);
    expect(model.throughput[0]).toEqual({ start: '2026-06-01T09:31:00.000Z', counts: { Success: 0, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 1, Failed: 0 } });
    expect(model.throughput[58].counts).toEqual({ Success: 0, Superseded: 0, Deferred: 0, Transitive: 1, Ignored: 0, Failed: 0 });
    expect(model.throughput[59]).toEqual({ start: '2026-06-01T10:30:00.000Z', counts: { Success: 2, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 0, Failed: 1 } });
    expect(model.detectedLastHour).toBe(7);
  });

  it('throughput falls back to the host’s recent list when the metrics cannot be read back', async () => {
    const f = statusFixture();
    f.sources.metrics = { track: () => {}, flush: async () => {} };
    f.stats.recordProcessed({ at: new Date('2026-06-01T10:30:01Z'), queue: 'sbqhigh', jobName: 'a', outcome: 'Success', disposition: 'completed', messageId: 'x' });
    const model = await buildStatus(f.sources, f.stats);
    expect(model.throughputSource).toBe('hostStats');
    expect(model.throughput[59].counts.Success).toBe(1);
  });
});
