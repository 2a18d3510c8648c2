import type { UnchangedCheck } from '../model/unchanged-check';
import type { Clock } from '../platform/clock';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import type { WatermarkStore } from '../model/watermark-record';
import type { Logger } from '../telemetry/logger';
import type { Metrics } from '../telemetry/metrics';
import type { SourceConnector } from '../../connectors/base/source-connector';
import type { JobRunResult } from './job-run';
import type { RunSettings } from './run-settings';
import type { RunStateStore } from './run-state';
import type { QueueDepth } from './queue-room';
import type { QueueNames, Priority } from '../platform/queue-topology';
import type { CouplingStore } from '../twoway/coupling-store';

/** Sends detected messages in batches per priority queue (ServiceBusService). */
export interface BatchingSender {
  addMessageOrSend(message: QueueMessage, priority: Priority): Promise<void>;
  /** Sends whatever is still batched. */
  flushBatch(): Promise<void>;
  /** Messages the bus accepted so far, per queue (batched but unsent messages not counted). */
  sentCounts(): Record<string, number>;
}

/** Detection reads it; processing (the applied-hash store) keeps it: a port of the model. */
export type { UnchangedCheck } from '../model/unchanged-check';

export interface RunLog {
  record(run: JobRunResult): Promise<void>;
}

export interface DetectionDependencies {
  config: {
    ensureInitialized(): Promise<unknown>;
    getJob(name: string): Job | undefined;
    getMapping(name: string): Mapping | undefined;
  };
  /** Due jobs in order (JobService). */
  dueJobs(now: Date): Promise<Job[]>;
  watermarks: WatermarkStore;
  sources: { source(connectionName: string): Promise<SourceConnector> };
  /** A fresh sender per run, so that one run's batches and failures stay its own. */
  newSender(): BatchingSender;
  queues: QueueNames;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  unchanged?: UnchangedCheck;
  runLog?: RunLog;
  /** Resume cursors, running markers, failure backoff (RunStateService). None: runs read from the watermark, backoff held in memory. */
  runStates?: RunStateStore;
  /**
   * Active messages in a queue (the bus's `counts`), for backpressure (`queue-room.ts`). None:
   * runs send without backpressure.
   */
  queueDepth?: QueueDepth;
  /** Default: {@link readRunSettings} of `process.env`. */
  runSettings?: RunSettings;
  /** Couplings of two-way pairs, for echo suppression (docs/two-way.md). Default: none. */
  couplings?: CouplingStore;
}
