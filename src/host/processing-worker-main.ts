/**
 * The processing worker thread's entry (started by `processing-worker.ts`): its own runtime —
 * bus connection, table client, target connectors — and one {@link QueueProcessor} per work
 * queue running the very same `ProcessQueueMessageService` that `createRuntime` builds for the
 * Functions app. Results, metrics and log lines go to the main thread, which owns the stats,
 * the status page and telemetry.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { LocalBus } from '../bus/local/local-bus';
import { createBus, localBusSynchronous } from '../bus/create-bus';
import type { MessageBus } from '../bus/message-bus';
import { type Settings } from '../platform/settings';
import { errorMessage } from '../platform/errors';
import { createRuntime, type Runtime } from '../runtime/runtime';
import { BufferedMetrics, forwardingLogger, type FromWorker, type ProcessingWorkerData, type ToWorker, type WorkerResult } from './processing-worker-protocol';
import { processedEntryOf } from './host-stats';
import { QueueProcessor } from './queue-processor';
import { allQueueNames, PRIORITIES, type Priority } from '../platform/queue-topology';

/**
 * The bus of the settings; the local bus with a short poll: sends of the main thread wake
 * receivers of that thread only (queue-notifier.ts), so this thread finds them by looking.
 */
async function openBus(settings: Settings, pollIntervalMs: number): Promise<MessageBus> {
  if (settings.serviceBusConnectionString || settings.serviceBusNamespace) return createBus(settings);
  const synchronous = localBusSynchronous(settings.localBusSynchronous);
  return LocalBus.open({ dataDir: settings.dataDir, queues: allQueueNames(settings.queues), pollIntervalMs, ...(synchronous ? { synchronous } : {}) });
}

class ProcessingWorkerMain {
  private readonly metrics = new BufferedMetrics();
  private results: WorkerResult[] = [];
  private reportScheduled = false;
  private readonly processors = {} as Record<Priority, QueueProcessor>;
  private runtime?: Runtime;

  constructor(
    private readonly port: MessagePort,
    private readonly data: ProcessingWorkerData,
  ) {}

  private post(message: FromWorker): void {
    this.port.postMessage(message);
  }

  async run(): Promise<void> {
    const { settings, configDir, concurrency, pollIntervalMs, recordAllAppliedUntil } = this.data;
    const log = forwardingLogger(this.port);
    const bus = await openBus(settings, pollIntervalMs);
    let runtime: Runtime;
    try {
      runtime = await createRuntime({
        settings, configDir, log, metrics: this.metrics, bus, processorInstances: 'one',
        ...(recordAllAppliedUntil !== undefined ? { recordAllAppliedUntil: new Date(recordAllAppliedUntil) } : {}),
      });
      this.runtime = runtime;
    } catch (err) {
      await bus.close().catch(() => undefined);
      throw err;
    }
    try {
      await runtime.init.ensureInitialized();
    } catch (err) {
      await this.close(runtime, bus);
      throw err;
    }
    for (const priority of PRIORITIES) {
      const queue = settings.queues.work[priority];
      this.processors[priority] = new QueueProcessor({
        bus,
        queue,
        processor: runtime.processor,
        log,
        concurrency: concurrency[priority],
        onBatch: () => this.scheduleReport(),
        onResult: (result, message) => {
          this.results.push(processedEntryOf(Date.now(), queue, result, message));
          this.scheduleReport();
        },
      });
      this.processors[priority].start();
    }
    this.port.on('message', (message: ToWorker) => {
      if (message.type === 'stop') void this.stop(runtime, bus);
    });
    this.post({ type: 'ready' });
  }

  /** One report per event-loop turn: a batch's results travel together, and `busy` with them. */
  private scheduleReport(): void {
    if (this.reportScheduled) return;
    this.reportScheduled = true;
    setImmediate(() => this.report());
  }

  private report(): void {
    this.reportScheduled = false;
    const busy = Object.fromEntries(PRIORITIES.map((p) => [p, this.processors[p]?.busy ?? 0])) as Record<Priority, number>;
    const results = this.results;
    this.results = [];
    const health = this.runtime?.targetHealth;
    this.post({ type: 'report', results, metrics: this.metrics.take(), busy, health: { outages: health?.snapshot() ?? [], recoveries: health?.recoveries(new Date()) ?? [] } });
  }

  private async stop(runtime: Runtime, bus: MessageBus): Promise<void> {
    try {
      await Promise.all(PRIORITIES.map((p) => this.processors[p].stop()));
      await this.close(runtime, bus);
      this.report();
      this.post({ type: 'stopped' });
    } catch (err) {
      this.post({ type: 'failed', error: `stopping: ${errorMessage(err)}` });
    }
    this.port.close();
  }

  private async close(runtime: Runtime, bus: MessageBus): Promise<void> {
    try {
      await runtime.close();
    } finally {
      await bus.close();
    }
  }
}

if (parentPort) {
  const port = parentPort;
  new ProcessingWorkerMain(port, workerData as ProcessingWorkerData).run().catch((err: unknown) => {
    port.postMessage({ type: 'failed', error: errorMessage(err) } satisfies FromWorker);
    port.close();
  });
}
