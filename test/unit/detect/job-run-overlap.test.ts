import type { SourcePage } from '../../../connectors/base/source-connector';
import type { DetectionDependencies } from '../../../src/detect/detection-dependencies';
import { ProcessJobsForRetrievalInOrderService } from '../../../src/detect/process-jobs-service';
import type { Job } from '../../../src/model/job';
import { createQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import { silentLogger } from '../../../src/telemetry/logger';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * 20 simultaneous ExecuteJob calls of one job used to run at once and write the
 * watermark 11 times backwards. Within one process runs of one job now never overlap.
 */
describe('runs of one job in one process', () => {
  const job = { name: 'accounts', mapping: 'm', source: 'src', priority: 'normal', watermark: { type: 'datetime', field: 'modified_at' } } as unknown as Job;
  const tracker = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.0000000Z`;

  /** A source whose newest change grows while runs read; each read takes a few ticks. */
  function rig() {
    let newest = 1;
    let active = 0;
    let maxActive = 0;
    let stored: string | null = null;
    const writes: string[] = [];
    const message = (n: number): QueueMessage =>
      createQueueMessage({ jobName: job.name, action: 'NewUpdate' as never, sourceKey: `A-${n}`, targetKey: { id: `A-${n}` }, changeTracker: tracker(n), fields: {} });
    const deps = {
      config: { ensureInitialized: async () => undefined, getJob: () => job, getMapping: () => ({ name: 'm' }) },
      dueJobs: async () => [],
      watermarks: {
        getWatermarkByJobName: async () => ({ jobName: job.name, watermark: stored, lastCronRun: null, persisted: stored !== null }),
        getAllWatermarks: async () => new Map(),
        updateWatermarkByJobName: async (_name: string, value: string | null) => {
          writes.push(value ?? '');
          stored = value;
        },
        resetWatermark: async () => undefined,
      },
      sources: {
        source: async () => ({
          close: async () => undefined,
          async *retrieveChanges(): AsyncIterable<SourcePage> {
            active++;
            maxActive = Math.max(maxActive, active);
            try {
              const upTo = newest++;
              for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
              yield { messages: [message(upTo)], timeStamps: [], lastChangeTracker: tracker(upTo), rowCount: 1, cursor: '', hasMore: false };
            } finally {
              active--;
            }
          },
        }),
      },
      newSender: () => ({ addMessageOrSend: async () => undefined, flushBatch: async () => undefined, sentCounts: () => ({}) }),
      queues: DEFAULT_QUEUES,
      clock: { now: () => new Date() },
      metrics: { track: () => undefined },
      log: silentLogger,
      runSettings: undefined,
    } as unknown as DetectionDependencies;
    return { service: new ProcessJobsForRetrievalInOrderService(deps), writes, maxActive: () => maxActive };
  }

  it('runs 20 simultaneous calls one after the other: the watermark never moves backwards', async () => {
    const { service, writes, maxActive } = rig();
    const runs = await Promise.all(Array.from({ length: 20 }, () => service.runJob(job, { trigger: 'manual' })));
    expect(runs.every((r) => r.outcome === 'Succeeded')).toBe(true);
    expect(maxActive()).toBe(1);
    expect(writes.length).toBeGreaterThan(0);
    for (let i = 1; i < writes.length; i++) expect(writes[i] >= writes[i - 1]).toBe(true);
    // Calls made before the run started share it: one run for all 20.
    expect(writes).toEqual([tracker(1)]);
  });

  it('calls made while a run is going share the one run queued behind it: at most two runs', async () => {
    const { service, writes, maxActive } = rig();
    const first = service.runJob(job, { trigger: 'manual' });
    await new Promise((r) => setImmediate(r)); // the first run has started reading
    const later = await Promise.all(Array.from({ length: 19 }, () => service.runJob(job, { trigger: 'manual' })));
    expect((await first).watermarkAfter).toBe(tracker(1));
    expect(later.map((r) => r.watermarkAfter)).toEqual(Array(19).fill(tracker(2)));
    expect(writes).toEqual([tracker(1), tracker(2)]);
    expect(maxActive()).toBe(1);
  });

  it('a later call waits for the running one and then reads on from its watermark', async () => {
    const { service, writes } = rig();
    const first = service.runJob(job, { trigger: 'manual' });
    const second = service.runJob(job, { trigger: 'scheduled' });
    const [a, b] = await Promise.all([first, second]);
    expect([a.watermarkBefore, a.watermarkAfter, b.watermarkBefore, b.watermarkAfter]).toEqual([null, tracker(1), tracker(1), tracker(2)]);
    expect(writes).toEqual([tracker(1), tracker(2)]);
  });

  it('dry runs are not held: they write nothing', async () => {
    const { service, maxActive } = rig();
    await Promise.all([service.runJob(job, { trigger: 'manual' }), service.runJob(job, { dryRun: true })]);
    expect(maxActive()).toBe(2);
  });
});
