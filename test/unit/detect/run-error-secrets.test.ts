import type { DetectionDependencies } from '../../../src/detect/detection-dependencies';
import type { JobRunResult } from '../../../src/detect/job-run';
import { ProcessJobsForRetrievalInOrderService } from '../../../src/detect/process-jobs-service';
import type { Job } from '../../../src/model/job';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * A run that failed on `https://:S3cr3t@host/odata/` printed the URL with the
 * password, and the `runs` table kept it. The run's error is scrubbed before it is logged, stored
 * or answered.
 */
describe('a failed run names no password', () => {
  it('scrubs the error in the result, the log line and the run record', async () => {
    const job = { name: 'accounts', mapping: 'm', source: 'src', priority: 'normal', watermark: { type: 'datetime', field: 'modified_at' } } as unknown as Job;
    const logged: string[] = [];
    const recorded: JobRunResult[] = [];
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
        source: async () => {
          throw new Error('GET https://:S3cr3t@crm.example.com/odata/Accounts failed: 401, passphrase=hunter2');
        },
      },
      newSender: () => ({ addMessageOrSend: async () => undefined, flushBatch: async () => undefined, sentCounts: () => ({}) }),
      queues: DEFAULT_QUEUES,
      clock: { now: () => new Date() },
      metrics: { track: () => undefined },
      log: { info: () => undefined, warn: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) },
      runLog: { record: async (run: JobRunResult) => void recorded.push(run) },
    } as unknown as DetectionDependencies;

    const run = await new ProcessJobsForRetrievalInOrderService(deps).runJob(job);

    const scrubbed = 'GET https://***@crm.example.com/odata/Accounts failed: 401, passphrase=***';
    expect([run.outcome, run.error]).toEqual(['Failed', scrubbed]);
    expect(recorded.map((r) => r.error)).toEqual([scrubbed]);
    expect(logged).toContain(`job "accounts" failed: ${scrubbed}`);
    expect(JSON.stringify({ run, logged, recorded })).not.toMatch(/S3cr3t|hunter2/);
  });
});
