import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ConnectorProvider } from '../../connectors/connector-provider';
import { defaultConnectorRegistry } from '../../connectors/default-registry';
import type { ConnectorRegistry } from '../../connectors/base/registry';
import { createBus } from '../bus/create-bus';
import type { MessageBus } from '../bus/message-bus';
import { errorProperties } from '../bus/message-properties';
import { ServiceBusService } from '../bus/service-bus-service';
import { InitializationService } from '../config/initialization-service';
import { readSettings, type Settings } from '../platform/settings';
import { JobService } from '../detect/job-service';
import { ProcessJobsForRetrievalInOrderService } from '../detect/process-jobs-service';
import { RUNS_TABLE, RunLogStore } from '../detect/run-log-store';
import { readRunSettings } from '../detect/run-settings';
import type { JobRunResult } from '../detect/job-run';
import { WatermarkService } from '../detect/watermark-service';
import { RunStateService } from '../detect/run-state-service';
import { systemClock, type Clock } from '../platform/clock';
import { APPLIED_HASHES_TABLE, AppliedHashStore } from '../process/applied-hash-store';
import { APPLIED_VERSIONS_TABLE, AppliedVersionStore } from '../storage/applied-version-store';
import { liveRelatedJobs } from '../process/related-jobs';
import { DELETIONS_TABLE, DeletionStore } from '../process/deletion-store';
import { ProcessQueueMessageService } from '../process/process-queue-message-service';
import { TargetHealth } from '../process/target-health';
import { SharedRecoveries, TARGET_RECOVERIES_TABLE } from '../process/shared-recoveries';
import { readExecuteWaitMs } from '../http/execute-wait';
import { RUN_STATUS_TABLE, RunStatusStore } from '../http/run-status-store';
import { RunTracker } from '../http/run-tracker';
import { openTableStorage } from '../storage/table-client-factory';
import type { TableStorage } from '../storage/table-store';
import { consoleLogger, type Logger } from '../telemetry/logger';
import { InMemoryMetrics, type Metrics } from '../telemetry/metrics';
import { PushService } from '../push/push-service';
import { SubscriptionKeeper } from '../push/subscription-keeper';
import { businessCentralPushClients, dataverseRecordReaders } from './push-clients';
import { configLookup } from './config-lookup';
import type { CouplingStore } from '../twoway/coupling-store';
import { PairEchoCheck } from '../twoway/echo-check';
import type { UnchangedCheck } from '../model/unchanged-check';
import { createCouplingStore } from '../twoway/table-coupling-store';

export interface RuntimeOptions {
  /** Default: read from the environment. */
  settings?: Settings;
  /** Load configuration from this folder instead of the tables (local host, demo). */
  configDir?: string;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: the console. */
  log?: Logger;
  /** Default: in memory. */
  metrics?: Metrics;
  /** Default: every connector Highwater ships. */
  registry?: ConnectorRegistry;
  /** Where secrets are read from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Lock renewal interval of the processor, ms. Default 30 000. */
  lockRenewalMs?: number;
  /**
   * How long ExecuteJob waits for its run before answering 202, ms. Default from
   * `HIGHWATER_EXECUTE_WAIT_SECONDS` in `env` (100 s).
   */
  executeWaitMs?: number;
  /** Called after every job run is recorded (local host progress, status page). */
  onJobRun?: (run: JobRunResult) => void;
  /** Already opened storage / bus to use (tests); the runtime does not close what it was given. */
  storage?: TableStorage;
  bus?: MessageBus;
  /**
   * `one` when this runtime is the only one processing messages (the local host): the stale
   * guard then needs no window for other instances' watches. Default `many` (Functions).
   */
  processorInstances?: 'one' | 'many';
  /** Record every applied change until then (a host that took over from one that died; see AppliedVersionStoreOptions.recordAllUntil). Default none. */
  recordAllAppliedUntil?: Date;
}

/**
 * The composition root: every service wired once, shared by the Functions app and the local
 * host, so that both run the very same handlers.
 */
export interface Runtime {
  readonly settings: Settings;
  readonly storage: TableStorage;
  readonly bus: MessageBus;
  readonly init: InitializationService;
  readonly watermarks: WatermarkService;
  /** The runs' resume cursors, running markers and failure backoff, beside the watermarks. */
  readonly runStates: RunStateService;
  readonly jobs: JobService;
  readonly connectors: ConnectorProvider;
  readonly detection: ProcessJobsForRetrievalInOrderService;
  readonly processor: ProcessQueueMessageService;
  /** Target connections in outage mode (status page, `/api/status`). */
  readonly targetHealth: TargetHealth;
  readonly sender: ServiceBusService;
  readonly runLog: RunLogStore;
  readonly appliedHashes: AppliedHashStore;
  /** The last applied change per job and record (the stale-message guard's store). */
  readonly appliedVersions: AppliedVersionStore;
  /** Couplings and parked conflicts of two-way pairs (detection, processing, the status page). */
  readonly couplings: CouplingStore;
  /** What detection asks before it sends a change: applied hashes, and couplings for pair jobs. */
  readonly unchanged: UnchangedCheck;
  /** ExecuteJob runs that outlast the request's wait (`GET runs/{id}`). */
  readonly acceptedRuns: RunTracker;
  /** Pushed notifications → the job's queue messages (`POST hooks/{job}`, the Dataverse queue). */
  readonly push: PushService;
  /** Business Central webhook subscriptions of the jobs that take its notifications (the renewal timer, the CLI). */
  readonly subscriptions: SubscriptionKeeper;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: Metrics;
  close(): Promise<void>;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const settings = options.settings ?? readSettings();
  const clock = options.clock ?? systemClock;
  const log = options.log ?? consoleLogger;
  const metrics = options.metrics ?? new InMemoryMetrics();
  const registry = options.registry ?? defaultConnectorRegistry();
  const env = options.env ?? process.env;
  const validateOptions = { connectionTypes: registry.connectionTypes() };
  const executeWaitMs = options.executeWaitMs ?? readExecuteWaitMs(env);
  // Read once here, so that a bad value stops the host (or the Functions app's first call) with
  // the setting's name, instead of failing every timer run later. From the process's own
  // environment, as before (`env` is the secrets' source, which tests replace).
  const runSettings = readRunSettings(process.env);

  const storage = options.storage ?? (await openTableStorage(settings, { log: (line) => log.info(line) }));
  let bus: MessageBus | undefined;
  try {
    bus = options.bus ?? (await createBus(settings, { clock }));
    const init = options.configDir
      ? new InitializationService({ source: 'files', configDir: options.configDir, storage, validateOptions })
      : new InitializationService({ source: 'tables', storage, validateOptions });
    const lookup = configLookup(init);
    const watermarks = await WatermarkService.open(storage);
    const runStates = await RunStateService.open(storage);
    const jobs = new JobService({ jobs: () => (init.isInitialized ? init.config.jobs : []), watermarks, timeZone: settings.timeZone });
    const connectors = new ConnectorProvider({
      registry,
      connection: (name) => init.getConnection(name),
      resolveSecret: (name) => env[name],
      configDir: options.configDir ? path.resolve(options.configDir) : process.cwd(),
      clock,
      warn: (m) => log.warn(m),
    });
    const sender = new ServiceBusService({ bus, queues: settings.queues });
    const runLog = new RunLogStore(await storage.table(RUNS_TABLE));
    const appliedHashes = new AppliedHashStore(await storage.table(APPLIED_HASHES_TABLE), clock);
    const deletions = new DeletionStore(await storage.table(DELETIONS_TABLE));
    const appliedVersions = new AppliedVersionStore(await storage.table(APPLIED_VERSIONS_TABLE), clock, {
      relatedJobs: liveRelatedJobs(() => (init.isInitialized ? init.config.jobs : []), lookup.getMapping),
      watch: options.processorInstances === 'one' ? { windowMs: 0 } : {},
      ...(options.recordAllAppliedUntil ? { recordAllUntil: options.recordAllAppliedUntil } : {}),
    });
    const couplings = createCouplingStore(storage);
    // Pair jobs ask the coupling (echo suppression), other skipUnchanged jobs the applied hashes.
    const unchanged = new PairEchoCheck(couplings, lookup.getMapping, appliedHashes);
    const acceptedRuns = new RunTracker({ store: new RunStatusStore(await storage.table(RUN_STATUS_TABLE)), clock, log, waitMs: executeWaitMs });
    const busForSenders = bus;
    const detection = new ProcessJobsForRetrievalInOrderService({
      config: lookup,
      dueJobs: (now) => jobs.getJobsToRun(now),
      watermarks,
      runStates,
      sources: connectors,
      newSender: () => new ServiceBusService({ bus: busForSenders, queues: settings.queues }),
      queueDepth: async (queue) => (await busForSenders.counts(queue)).active,
      runSettings,
      queues: settings.queues,
      clock,
      metrics,
      log,
      unchanged,
      couplings,
      runLog: {
        record: async (run) => {
          try {
            await runLog.record(run);
          } finally {
            options.onJobRun?.(run);
          }
        },
      },
    });
    const targetHealth = new TargetHealth();
    // Each runtime is one instance of the outage mode (a Functions instance, the local host's processors).
    const recoveries = new SharedRecoveries(await storage.table(TARGET_RECOVERIES_TABLE), randomUUID(), log);
    const processor = new ProcessQueueMessageService({
      targetHealth,
      recoveries,
      config: lookup,
      targets: connectors,
      sources: connectors,
      sender,
      queues: settings.queues,
      clock,
      metrics,
      log,
      errorProperties,
      appliedHashes,
      deletions,
      appliedVersions,
      couplings,
      lockRenewalMs: options.lockRenewalMs,
    });
    const bcClients = businessCentralPushClients(connectors);
    const push = new PushService({
      config: { ...lookup, jobs: () => (init.isInitialized ? init.config.jobs : []) },
      bus,
      queues: settings.queues,
      clock,
      env,
      log,
      requestPoll: (job) => watermarks.markDue(job.name),
      businessCentral: bcClients,
      dataverse: dataverseRecordReaders(connectors),
    });
    const subscriptions = new SubscriptionKeeper({
      config: { ...lookup, jobs: () => (init.isInitialized ? init.config.jobs : []) },
      businessCentral: bcClients,
      env,
      clock,
      log,
    });
    const ownedBus = options.bus ? undefined : bus;
    return {
      settings,
      storage,
      bus,
      init,
      watermarks,
      runStates,
      jobs,
      connectors,
      detection,
      processor,
      targetHealth,
      sender,
      runLog,
      appliedHashes,
      appliedVersions,
      couplings,
      unchanged,
      acceptedRuns,
      push,
      subscriptions,
      clock,
      log,
      metrics,
      async close() {
        await acceptedRuns.close();
        await appliedHashes.close().catch((err) => log.warn(`applied hashes not flushed: ${String(err)}`));
        await appliedVersions.close().catch((err) => log.warn(`applied versions not flushed: ${String(err)}`));
        await recoveries.flushed();
        await connectors.close();
        await metrics.flush();
        await ownedBus?.close();
        if (!options.storage) await storage.close();
      },
    };
  } catch (err) {
    if (!options.bus) await bus?.close().catch(() => undefined);
    if (!options.storage) await storage.close().catch(() => undefined);
    throw err;
  }
}
