import type { SourcePage } from '../../../connectors/base/source-connector';
import { withLiveRuns } from '../../../src/cli/commands/live-runs';
import type { DetectionDependencies } from '../../../src/detect/detection-dependencies';
import type { JobRunResult } from '../../../src/detect/job-run';
import { ProcessJobsForRetrievalInOrderService } from '../../../src/detect/process-jobs-service';
import { HostStats } from '../../../src/host/host-stats';
import { progressLine } from '../../../src/host/progress';
import type { Job } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { silentLogger } from '../../../src/telemetry/logger';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * While a job reads, the progress line counts what it has detected and sent so
 * far (it said `detected 0, sent 0` until the job ended), and each run is counted once.
 */
describe('live detection counts in the progress line', () => {
  const job = { name: 'accounts', mapping: 'm', source: 'src', priority: 'high', watermark: { type: 'datetime', field: 'modified_at' } } as unknown as Job;
  const tracker = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.0000000Z`;

  it('counts a run’s pages as they are read, then the finished run once', async () => {
    const stats = new HostStats(new Date('2026-01-01T00:00:00Z'));
    const lines: string[] = [];
    let sent = 0;
    // Read by the source below, which runs after both are set.
    const views: HostStats[] = [];
    const deps = {
      config: { ensureInitialized: async () => undefined, getJob: () => job, getMapping: () => ({ name: 'm' }) },
      dueJobs: async () => [],
      watermarks: {
        getWatermarkByJobName: async () => ({ jobName: job.name, watermark: null, lastCronRun: null, persisted: false }),
        getAllWatermarks: async () => new Map(),
        updateWatermarkByJobName: async () => undefined,
        resetWatermark: async () => undefined,
      },
      sources: {
        source: async () => ({
          close: async () => undefined,
          async *retrieveChanges(): AsyncIterable<SourcePage> {
            for (let page = 0; page < 3; page++) {
              // The line as the host's timer would print it before this page.
              lines.push(progressLine(views[0], new Date('2026-01-01T00:00:01Z')).slice(11));
              const messages = [1, 2].map((i) =>
                createQueueMessage({ jobName: job.name, action: 'NewUpdate' as never, sourceKey: `A-${page}-${i}`, targetKey: { id: 'x' }, changeTracker: tracker(page), fields: {} }),
              );
              yield { messages, timeStamps: [], lastChangeTracker: tracker(page), rowCount: 2, cursor: '', hasMore: page < 2 };
            }
          },
        }),
      },
      newSender: () => ({ addMessageOrSend: async () => void sent++, flushBatch: async () => undefined, sentCounts: () => ({ sbqhigh: sent }) }),
      queues: DEFAULT_QUEUES,
      clock: { now: () => new Date('2026-01-01T00:00:01Z') },
      metrics: { track: () => undefined },
      log: silentLogger,
      runLog: { record: async (run: JobRunResult) => stats.recordRun(run) },
    } as unknown as DetectionDependencies;
    const service = new ProcessJobsForRetrievalInOrderService(deps);
    const live = withLiveRuns(stats, service);
    const view = live.view;
    views.push(view);
    await service.runJob(job, { trigger: 'scheduled' });
    lines.push(progressLine(view, new Date('2026-01-01T00:00:01Z')).slice(11));
    expect(lines).toEqual([
      'detected 0, sent 0 | processed 0',
      'detected 2, sent 2 | processed 0',
      'detected 4, sent 4 | processed 0',
      'detected 6, sent 6 | processed 0',
    ]);
    expect(view.recentRuns).toHaveLength(1);
    live.stop();
    // The view is the stats otherwise: processed counts come through.
    stats.recordProcessed({ at: new Date(), queue: 'sbqhigh', jobName: job.name, outcome: 'Success', disposition: 'completed', messageId: 'm' });
    expect(view.processedCount()).toBe(1);
  });
});
