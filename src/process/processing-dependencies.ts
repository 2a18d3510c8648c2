import type { ApplicationProperties, OutgoingMessage } from '../bus/message-bus';
import type { Clock } from '../platform/clock';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair } from '../model/pair';
import type { CouplingStore } from '../twoway/coupling-store';
import type { QueueMessage } from '../model/queue-message';
import type { Metrics } from '../telemetry/metrics';
import type { TargetConnector } from '../../connectors/base/target-connector';
import type { SourceConnector } from '../../connectors/base/source-connector';
import type { Logger } from '../telemetry/logger';
import type { DeletionGuard } from './deletion-store';
import type { AppliedVersionRecorder } from '../storage/applied-version-store';
import type { TargetHealth } from './target-health';
import type { SharedRecoveries } from './shared-recoveries';
import type { QueueNames } from '../platform/queue-topology';

/** The configuration as the processor sees it (InitializationService provides it). */
export interface ConfigLookup {
  ensureInitialized(): Promise<unknown>;
  getJob(name: string): Job | undefined;
  getMapping(name: string): Mapping | undefined;
  /** The two-way pair of that name (see `Pair`); optional for lookups without pairs. */
  getPair?(name: string): Pair | undefined;
}

/** Opens (and caches) target connectors by connection name. */
interface TargetProvider {
  target(connectionName: string): Promise<TargetConnector>;
}

/** Opens (and caches) source connectors by connection name. */
export interface SourceProvider {
  source(connectionName: string): Promise<SourceConnector>;
}

/** Sends single messages (side queues, response messages); `messageId` replaces the change's own id. */
interface SingleSender {
  sendMessage(queue: string, message: QueueMessage, properties?: ApplicationProperties, messageId?: string): Promise<void>;
  /** Sends ready-made messages to one queue, in order (retry and side-queue copies, responses). */
  sendOutgoing(queue: string, messages: readonly OutgoingMessage[]): Promise<void>;
}

/** Remembers what was applied per record, for `skipUnchanged` jobs. */
export interface AppliedHashRecorder {
  recordApplied(job: Job, message: QueueMessage): Promise<void>;
  forget(job: Job, message: QueueMessage): Promise<void>;
}

export interface ProcessingDependencies {
  config: ConfigLookup;
  targets: TargetProvider;
  sender: SingleSender;
  queues: QueueNames;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  /** Builds `ErrorMessage`/`ErrorType`/`ErrorAt` (scrubbed of secrets, capped). */
  errorProperties(err: unknown, now: Date): ApplicationProperties;
  appliedHashes?: AppliedHashRecorder;
  /** Applied deletions: an upsert older than a delete of its record is outdated (skip-outdated jobs). Default: none. */
  deletions?: DeletionGuard;
  /** The last applied change per job and record: a message that comes back older than it is ignored. Default: none. */
  appliedVersions?: AppliedVersionRecorder;
  /** Sources of the jobs: a message delivered again after a lost lock is checked against its record there (see `source-check.ts`). Default: none (not checked). */
  sources?: SourceProvider;
  /** Two-way sync's couplings and parked conflicts (jobs of a pair need it). Default: none. */
  couplings?: CouplingStore;
  /** Lock renewal interval in ms. Default 30 000. */
  lockRenewalMs?: number;
  /** The outage mode of target connections (see `target-health.ts`). Default: none (every group goes to its target). */
  targetHealth?: TargetHealth;
  /** Other instances' recoveries from target outages (see `shared-recoveries.ts`). Default: none (this instance's own only). */
  recoveries?: SharedRecoveries;
  /** Attempts before a failing message is dead-lettered (`MaxDeliveryCountExceeded`). Default 10, the queues' `maxDeliveryCount`. */
  maxAttempts?: number;
}
