import type { QueueCounts } from '../../../../src/bus/message-bus';
import type { JobRunResult } from '../../../../src/detect/job-run';
import { IncidentMonitor } from '../../../../src/host/incidents/incident-monitor';
import type { Job } from '../../../../src/model/job';
import type { WatermarkRecord } from '../../../../src/model/watermark-record';
import { DEFAULT_QUEUES } from '../../../../src/platform/queue-topology';
import { TargetHealth } from '../../../../src/process/target-health';
import { startGaugeSampler } from '../../../../src/runtime/gauges';
import { InMemoryMetrics } from '../../../../src/telemetry/metrics';
import { FakeClock } from '../../../support/fake-clock';
import { recordingLog } from '../../telemetry/telemetry-stubs';

/**
 * The incident monitor as the local host runs it: fed by the gauge sampler every 15 s (a fake
 * clock), reading the runs and the real outage-mode state machine.
 */
describe('IncidentMonitor on the gauge sampler', () => {
  const clock = new FakeClock('2026-03-01T10:00:00Z');
  const health = new TargetHealth();
  const counts = new Map<string, QueueCounts>();
  const runs: JobRunResult[] = [];
  let runsReadable = true;
  /** When the job last read its source to the end; null: just now (a job on schedule). */
  let lastRead: Date | null = null;
  const log = recordingLog();
  const jobs = [{ name: 'accounts', schedule: '* * * * *', watermark: { type: 'datetime', field: 'modified_at' } } as Job];
  const monitor = new IncidentMonitor({
    jobs: () => jobs,
    runLog: {
      latest: async (job?: string, limit = 20) => {
        if (!runsReadable) throw new Error('table runs unavailable');
        return runs.filter((r) => r.jobName === job).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime()).slice(0, limit);
      },
    },
    targetHealth: () => health,
    clock,
    log,
  });
  let stop: () => void;
  const state = () => monitor.list().map((i) => `${i.closedAt ? 'closed' : 'open'} ${i.condition} ${i.cause}`);
  const run = (outcome: JobRunResult['outcome'], error?: string) =>
    runs.push({ jobName: 'accounts', trigger: 'scheduled', startedAt: clock.now(), endedAt: clock.now(), detected: 0, sentByQueue: {}, timeStamps: 0, watermarkBefore: null, watermarkAfter: null, outcome, ...(error ? { error } : {}) });

  beforeAll(() => {
    stop = startGaugeSampler(
      {
        jobs: () => jobs,
        watermarks: { getAllWatermarks: async () => new Map<string, WatermarkRecord>([['accounts', { jobName: 'accounts', watermark: '2026-01-01T00:00:00.0000000Z', lastCronRun: lastRead ?? clock.now(), persisted: true, resync: null }]]) },
        bus: { counts: async (queue) => counts.get(queue) ?? { active: 0, scheduled: 0, deadLetter: 0 } },
        queues: DEFAULT_QUEUES,
        metrics: new InMemoryMetrics(),
        clock,
        log,
      },
      15_000,
      (sample) => monitor.observe(sample),
    );
  });
  afterAll(() => stop());

  it('opens an incident per cause when its condition begins and closes it when it clears', async () => {
    await clock.advance(0);
    expect(state()).toEqual([]);

    // The target goes down (a missing table opens the outage at once): open at the next sample.
    health.failed('erp', clock.now(), 'no such table: customers', ['m1'], 'config');
    await clock.advance(15_000);
    expect(state()).toEqual(['open targetOutage erp']);
    expect(log.lines).toEqual(['warn incident opened: Target in outage, connection "erp": in outage since 2026-03-01T10:00:00.000Z after 1 failed group: no such table: customers']);
    const [opened] = monitor.list();

    // Still down 5 minutes on: the same incident, not a new one.
    await clock.advance(5 * 60_000);
    expect(monitor.list()).toEqual([expect.objectContaining({ id: opened.id, closedAt: null })]);

    // A dead letter arrives in sbqnormal; the target answers again.
    counts.set('sbqnormal', { active: 0, scheduled: 0, deadLetter: 1 });
    health.succeeded('erp');
    await clock.advance(15_000);
    expect(state()).toEqual(['open deadLettersRising sbqnormal', 'closed targetOutage erp']);
    expect(monitor.list()[1].closedAt).toEqual(clock.now());

    // 15 minutes without another dead letter: the rise has left the window and the incident closes.
    await clock.advance(15 * 60_000);
    expect(state()).toEqual(['closed deadLettersRising sbqnormal', 'closed targetOutage erp']);
  });

  it('counts failed runs in a row, and keeps the incident open while the runs cannot be read', async () => {
    for (let i = 0; i < 3; i++) {
      run('Failed', 'source unreachable');
      await clock.advance(60_000);
    }
    expect(state()[0]).toBe('open jobFailing accounts');
    runsReadable = false;
    await clock.advance(60_000);
    expect(state()[0]).toBe('open jobFailing accounts');
    expect(log.lines).toContain('warn incidents: runs not readable, failing jobs not evaluated: table runs unavailable');
    runsReadable = true;
    run('Succeeded');
    await clock.advance(15_000);
    expect(state()[0]).toBe('closed jobFailing accounts');
  });

  it('opens a behind-schedule incident past 3600 s, none over a quiet source, and forgets closed incidents after 24 h', async () => {
    // The source is quiet (its newest change is months old) while the job reads it every minute: no incident.
    await clock.advance(15_000);
    expect(state().filter((s) => s.includes('lagBeyond'))).toEqual([]);
    // The job has not read to the end for over an hour after a run was due.
    lastRead = new Date(clock.now().getTime() - 3_700_000);
    await clock.advance(15_000);
    expect(state()[0]).toBe('open lagBeyond accounts');
    lastRead = null;
    await clock.advance(15_000);
    expect(state().filter((s) => s.startsWith('open'))).toEqual([]);
    // A day on (the sampler stopped, so that the fake clock need not step through every sample).
    stop();
    await clock.advance(24 * 60 * 60_000 + 1);
    expect(monitor.list()).toEqual([]);
    await monitor.observe({ lagSeconds: {}, overdueSeconds: { accounts: 7200 }, lagSampled: true, depths: [] });
    expect(state()).toEqual(['open lagBeyond accounts']);
  });
});
