import { InvocationContext, type Timer } from '@azure/functions';
import { sampleGaugesTimer } from '../../../functions/SampleGauges';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { InMemoryMetrics } from '../../../src/telemetry/metrics';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';
import { allQueueNames } from '../../../src/platform/queue-topology';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

const tick: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };

/** The Functions app's gauge timer on a real runtime: the same gauges the local host samples. */
describe('SampleGauges timer', () => {
  let f: SyncFixture;
  const metrics = new InMemoryMetrics();
  beforeAll(async () => {
    f = await createSyncFixture({ metrics });
    setRuntimeFactory(async () => f.runtime);
  });
  afterAll(() => f.close());

  const sample = async () => {
    const logs: string[] = [];
    metrics.points.length = 0;
    await sampleGaugesTimer(tick, new InvocationContext({ functionName: 'SampleGauges', logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) }));
    return logs;
  };

  it('loads the configuration on an instance where nothing else ran yet', async () => {
    expect(f.runtime.init.isInitialized).toBe(false);
    const queues = allQueueNames(f.settings.queues);
    expect(await sample()).toEqual([`debug: gauges sampled: ${queues.length} queue(s), 0 watermark lag(s)`]);
    expect(f.runtime.init.isInitialized).toBe(true);
  });

  it('tracks QueueDepth for every queue and WatermarkLagSeconds per job with a datetime watermark', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('G-1', 'Acme', 'Berlin', '2026-01-01T10:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.findJob('crm-accounts')!);
    const logs = await sample();

    const depths = metrics.points.filter((p) => p.name === 'QueueDepth');
    const queues = allQueueNames(f.settings.queues);
    expect(depths).toHaveLength(queues.length * 3);
    expect(depths.find((p) => p.dimensions.queue === 'sbqhigh' && p.dimensions.state === 'active')).toMatchObject({ value: 1, dimensions: { role: 'work' } });
    expect(depths.find((p) => p.dimensions.queue === 'sbqtransitivelow' && p.dimensions.state === 'deadLetter')).toMatchObject({ value: 0, dimensions: { role: 'transitive' } });
    // Only crm-accounts has a datetime watermark that is not the type's default yet.
    const lag = metrics.points.filter((p) => p.name === 'WatermarkLagSeconds');
    expect(lag.map((p) => p.dimensions.job)).toEqual(['crm-accounts']);
    expect(lag[0].value).toBeGreaterThan(0);
    expect(logs).toEqual([`debug: gauges sampled: ${queues.length} queue(s), 1 watermark lag(s)`]);
  });
});
