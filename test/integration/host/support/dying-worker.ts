/**
 * A stand-in for the processing worker's entry: it reports ready, one processed message and an
 * outage of `erp`, then dies as a worker with a bug would (an uncaught error), for ProcessingWorker's supervision.
 */
import { parentPort } from 'node:worker_threads';
import type { FromWorker } from '../../../../src/host/processing-worker-protocol';

const post = (message: FromWorker) => parentPort?.postMessage(message);
post({ type: 'ready' });
post({
  type: 'report',
  results: [{ at: Date.now(), queue: 'sbqnormal', jobName: 'job', outcome: 'Success', disposition: 'completed', messageId: 'm1' }],
  metrics: [{ name: 'MessagesProcessed', value: 1, dimensions: { job: 'job', queue: 'sbqnormal', outcome: 'Success' } }],
  busy: { high: 0, normal: 1, low: 0 },
  health: {
    outages: [{ connection: 'erp', since: new Date('2026-12-03T10:00:00Z'), nextProbeAt: new Date('2026-12-03T10:00:30Z'), error: 'the table does not exist', failures: 5 }],
    recoveries: [{ connection: 'crm', until: new Date('2999-01-01T00:00:00Z') }],
  },
});
setTimeout(() => {
  throw new Error('boom in the worker');
}, 20);
