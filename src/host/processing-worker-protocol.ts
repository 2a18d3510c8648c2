import type { MessagePort } from 'node:worker_threads';
import type { Settings } from '../platform/settings';
import type { ProcessResult } from '../process/process-queue-message-service';
import type { Logger } from '../telemetry/logger';
import type { Dimensions, MetricName, Metrics, ProcessOutcome } from '../telemetry/metrics';
import type { Priority } from '../platform/queue-topology';
import type { OutageState, RecoveryState } from '../process/target-health';

/**
 * What the local host's main thread and its processing worker (`processing-worker-main.ts`) say
 * to each other. Everything crosses the thread boundary as structured clones: plain data only.
 */

/** Given to the worker at start. */
export interface ProcessingWorkerData {
  settings: Settings;
  /** The host's configuration folder; absent: the configuration tables (tables mode). */
  configDir?: string;
  concurrency: Record<Priority, number>;
  /** How often a receive on an empty queue looks again, ms (no wake-up crosses threads). */
  pollIntervalMs: number;
  /** Epoch ms until which every applied change is recorded (the host took over from one that died); absent: none. */
  recordAllAppliedUntil?: number;
}

/** One processed message, as {@link HostStats} records it (`at` in epoch ms). */
export interface WorkerResult {
  at: number;
  queue: string;
  jobName: string;
  outcome: ProcessOutcome;
  disposition: ProcessResult['disposition'];
  error?: string;
  messageId: string;
}

export interface WorkerMetricPoint {
  name: MetricName;
  value: number;
  dimensions?: Dimensions;
}

/** The worker's outage mode as the status page shows it (`TargetHealth.snapshot()` and `recoveries()` when reported). */
export interface WorkerTargetHealth {
  outages: OutageState[];
  recoveries: RecoveryState[];
}

/** Worker → main thread. */
export type FromWorker =
  | { type: 'ready' }
  /** Results and metrics since the last report; the messages in flight per priority and the outage mode now. */
  | { type: 'report'; results: WorkerResult[]; metrics: WorkerMetricPoint[]; busy: Record<Priority, number>; health: WorkerTargetHealth }
  | { type: 'log'; level: keyof Logger; message: string; context?: Record<string, unknown> }
  /** Starting or running failed: the worker exits after this. */
  | { type: 'failed'; error: string }
  /** Every batch in flight finished and the runtime is closed: the worker exits after this. */
  | { type: 'stopped' };

/** Main thread → worker. */
export type ToWorker = { type: 'stop' };

/** Sends the worker's log lines to the main thread, which writes them through the host's logger. */
export function forwardingLogger(port: MessagePort): Logger {
  const send = (level: keyof Logger) => (message: string, context?: Record<string, unknown>) => {
    try {
      port.postMessage({ type: 'log', level, message, context } satisfies FromWorker);
    } catch {
      // A context that cannot be cloned: the line without it.
      port.postMessage({ type: 'log', level, message } satisfies FromWorker);
    }
  };
  return { info: send('info'), warn: send('warn'), error: send('error') };
}

/**
 * Collects the worker's metric points until the next report: the main thread tracks them on the
 * host's own metrics (local file, status page charts, Application Insights), so one process has
 * one set of metrics whichever thread processed.
 */
export class BufferedMetrics implements Metrics {
  private points: WorkerMetricPoint[] = [];

  track(name: MetricName, value: number, dimensions?: Dimensions): void {
    this.points.push({ name, value, dimensions });
  }

  /** The points since the last call. */
  take(): WorkerMetricPoint[] {
    const taken = this.points;
    this.points = [];
    return taken;
  }

  /** Nothing to send from here: the next report carries the points. */
  async flush(): Promise<void> {}
}
