/**
 * A stand-in for the processing worker's entry: it reports ready and one processed message,
 * then dies as a worker with a bug would (an uncaught error), for ProcessingWorker's supervision.
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
});
setTimeout(() => {
  throw new Error('boom in the worker');
}, 20);
