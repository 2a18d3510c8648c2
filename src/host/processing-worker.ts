import { Worker } from 'node:worker_threads';
import { workerEntry, workerScript } from '../platform/worker-entry';
import type { Logger } from '../telemetry/logger';
import type { Metrics } from '../telemetry/metrics';
import type { FromWorker, ProcessingWorkerData, ToWorker, WorkerResult, WorkerTargetHealth } from './processing-worker-protocol';
import type { TargetHealthView } from '../process/target-health';
import { PRIORITIES, type Priority } from '../platform/queue-topology';

/** Starts of a worker that died within this time of the last one count towards {@link MAX_QUICK_FAILURES}. */
const QUICK_FAILURE_MS = 60_000;
/** Quick failures in a row after which the host stops restarting the worker. */
export const MAX_QUICK_FAILURES = 3;

export interface ProcessingWorkerOptions {
  data: ProcessingWorkerData;
  /** Each message the worker processed, in order. */
  onResult: (result: WorkerResult) => void;
  /** Where the worker's metric points are tracked (the host's metrics). */
  metrics: Metrics;
  log: Logger;
  /** The worker's script. Default `processing-worker-main` next to this file (tests pass a stand-in). */
  entry?: string;
}

/**
 * The local host's queue processors on a worker thread (the second core), with a bus connection,
 * table client and target connectors of their own. The main thread keeps detection, the HTTP
 * server and the schedule. A worker that dies is restarted (its messages stay locked and are
 * delivered again, nothing is lost); after {@link MAX_QUICK_FAILURES} quick failures in a row the
 * host gives up with {@link failure} set and the error logged.
 */
export class ProcessingWorker {
  private worker?: Worker;
  private busyNow: Record<Priority, number> = { high: 0, normal: 0, low: 0 };
  private healthNow: WorkerTargetHealth = { outages: [], recoveries: [] };
  private stopping = false;
  private quickFailures = 0;
  private startedAt = 0;
  /** Set once the worker is given up on: why. */
  failure?: Error;

  private constructor(private readonly options: ProcessingWorkerOptions) {}

  /** Starts the worker and resolves once its processors run. @throws Error naming why the worker did not start. */
  static async start(options: ProcessingWorkerOptions): Promise<ProcessingWorker> {
    const pw = new ProcessingWorker(options);
    await pw.spawn();
    return pw;
  }

  /** Messages in flight on a priority's queue, as last reported (0 when no worker runs). */
  busy(priority: Priority): number {
    return this.worker ? this.busyNow[priority] : 0;
  }

  /**
   * The worker's outage mode, as last reported (a report follows every batch, so the start and
   * end of an outage arrive with the batch that caused them): for the status page.
   */
  readonly targetHealth: TargetHealthView = {
    snapshot: () => (this.worker ? this.healthNow.outages : []),
    recoveries: (now) => (this.worker ? this.healthNow.recoveries.filter((r) => r.until.getTime() > now.getTime()) : []),
  };

  private spawn(): Promise<void> {
    const { file, execArgv } = workerEntry(this.options.entry ?? workerScript(__dirname, 'processing-worker-main'));
    const worker = new Worker(file, { workerData: this.options.data, execArgv });
    this.worker = worker;
    this.startedAt = Date.now();
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      let reason: string | undefined;
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          ready = true;
          resolve();
        } else if (message.type === 'report') this.apply(message);
        else if (message.type === 'log') this.options.log[message.level](message.message, message.context);
        else if (message.type === 'failed') reason = message.error;
        // Everything is closed: what could still hold the thread (keep-alive sockets) is dropped.
        else if (message.type === 'stopped') void worker.terminate();
      });
      worker.on('error', (err) => (reason ??= err.message));
      worker.once('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        const why = reason ?? `exited with code ${code}`;
        if (!ready) return reject(new Error(`the processing worker did not start: ${why}`));
        if (!this.stopping) this.died(why);
      });
    });
  }

  private apply(report: Extract<FromWorker, { type: 'report' }>): void {
    for (const result of report.results) this.options.onResult(result);
    for (const point of report.metrics) this.options.metrics.track(point.name, point.value, point.dimensions);
    this.busyNow = report.busy;
    this.healthNow = report.health;
  }

  private died(why: string): void {
    const { log } = this.options;
    this.busyNow = { high: 0, normal: 0, low: 0 };
    // A new worker starts a new outage mode: what the dead one knew is gone with it.
    this.healthNow = { outages: [], recoveries: [] };
    this.quickFailures = Date.now() - this.startedAt < QUICK_FAILURE_MS ? this.quickFailures + 1 : 1;
    if (this.quickFailures >= MAX_QUICK_FAILURES) {
      this.failure = new Error(`the processing worker failed ${this.quickFailures} times in a row, processing stopped: ${why}`);
      log.error(this.failure.message);
      return;
    }
    log.error(`the processing worker stopped unexpectedly (${why}): restarting it; its messages in flight are delivered again when their locks expire`);
    this.spawn().catch((err: Error) => this.died(err.message));
  }

  /** Stops receiving, lets the batches in flight finish, closes the worker's runtime; resolves when the thread has exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies ToWorker);
    await exited;
    for (const p of PRIORITIES) this.busyNow[p] = 0;
  }
}
