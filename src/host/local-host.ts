import net from 'node:net';
import path from 'node:path';
import type { ConnectorRegistry } from '../../connectors/base/registry';
import { defaultConnectorRegistry } from '../../connectors/default-registry';
import { loadConfigFolder } from '../config/load-config';
import { loadRequeueConfig } from '../config/requeue-config';
import { startScheduledRequeue } from '../runtime/scheduled-requeue';
import { ConfigError } from '../platform/errors';
import { readSettings, type Settings } from '../platform/settings';
import { EXECUTE_JOB_ROUTE, executeJobHandler } from '../http/execute-job-handler';
import type { HttpRoute } from '../http/http-types';
import type { Clock } from '../platform/clock';
import { systemClock } from '../platform/clock';
import { createRuntime, type Runtime } from '../runtime/runtime';
import { createTelemetry } from '../telemetry/create-telemetry';
import { startGaugeSampler } from '../runtime/gauges';
import { statusRoutes } from './status/status-routes';
import { consoleLogger, type Logger } from '../telemetry/logger';
import { DetectionScheduler } from './detection-scheduler';
import { durableRoutes } from './durable-routes';
import { HostStats } from './host-stats';
import { LocalHttpServer } from './http-server';
import { processingMode, type ProcessingMode } from './processing-mode';
import { ProcessingWorker } from './processing-worker';
import { QueueProcessor } from './queue-processor';
import { PRIORITIES, type Priority } from '../platform/queue-topology';

/** Messages in flight per work queue (in batches of up to 256, as the Functions app's `maxMessageBatchSize`). */
export const DEFAULT_CONCURRENCY: Record<Priority, number> = { high: 512, normal: 512, low: 128 };

/** How often the processing worker's receives look at an empty queue, ms (sends of the main thread do not wake another thread). */
export const WORKER_POLL_MS = 10;

export interface LocalHostOptions {
  /** Configuration folder (files mode). */
  configDir: string;
  /** HTTP port on 127.0.0.1. Default 7071 (as `func start`); 0 picks a free port. */
  port?: number;
  /** Default: read from the environment (`AzureWebJobsStorage`, `SERVICEBUS_CONNECTION_STRING`, …). */
  settings?: Settings;
  /** Do not start the GetChanges schedule (`--once` drives detection itself). Default false. */
  noSchedule?: boolean;
  /** Processor concurrency per priority. Default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: Partial<Record<Priority, number>>;
  /** More routes (the status page's are always there). */
  extraRoutes?: (ctx: { runtime: Runtime; stats: HostStats }) => HttpRoute[];
  log?: Logger;
  clock?: Clock;
  /** Connector types. Default: every connector Highwater ships (tests wrap them to inject faults). */
  registry?: ConnectorRegistry;
  /**
   * Runs once the configuration is loaded, before the processors, the HTTP server and the
   * schedule start (e.g. a reset of the jobs' state, which nothing may race). Default none.
   */
  beforeStart?: (runtime: Runtime) => Promise<void>;
  /**
   * Where the queue processors run: `worker` (a worker thread with its own bus connection, table
   * client and target connectors: the second core) or `inline` (the main thread, with detection
   * and the HTTP server). Default: the setting `HIGHWATER_LOCAL_PROCESSING`, else
   * `DEFAULT_PROCESSING_MODE` (processing-mode.ts); inline when `registry` or `clock` is given (neither can cross
   * to another thread), unless `worker` is asked for here, which is then an error.
   */
  processing?: ProcessingMode;
}

/** A queue processor as the host shows it, on whichever thread it runs. */
export interface ProcessorView {
  /** Messages being processed right now. */
  readonly busy: number;
}

/** The processing mode of these options. @throws ConfigError for a bad setting, or `worker` with a registry or clock. */
function chosenMode(options: LocalHostOptions, settings: Settings): ProcessingMode {
  const custom = options.registry ? 'registry' : options.clock ? 'clock' : undefined;
  if (options.processing === 'worker' && custom) {
    throw new ConfigError(`processing 'worker' cannot use the ${custom} option: a worker thread builds its own from the settings; use processing 'inline'`);
  }
  const mode = options.processing ?? processingMode(settings.localProcessing);
  return custom ? 'inline' : mode;
}

/** The message for a taken HTTP port: which port, and the flag that picks another. */
export function portInUseMessage(port: number): string {
  return `port ${port} on 127.0.0.1 is already in use (another highwater host?): stop what listens there, or pick another port with --port N (--port 0 picks a free one)`;
}

/** Fails fast, before Azurite starts, when the HTTP port is taken. @throws ConfigError {@link portInUseMessage}. */
async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new ConfigError(portInUseMessage(port), { cause: err }) : err));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

export interface LocalHost {
  /** `http://127.0.0.1:PORT` */
  url: string;
  runtime: Runtime;
  stats: HostStats;
  processors: Record<Priority, ProcessorView>;
  /** Where the processors run. */
  processing: ProcessingMode;
  /**
   * Resolves true when every work queue is empty and nothing is in flight (checked twice in a
   * row), false at the timeout. @throws the processing worker's failure once it is given up on.
   */
  drained(options?: { timeoutMs?: number; pollMs?: number }): Promise<boolean>;
  /** Stops the schedule, the HTTP server and the processors (in-flight messages finish), then closes the runtime. */
  stop(): Promise<void>;
}

/**
 * The local host (ARCHITECTURE §10): one process running the same handlers as the Functions app —
 * GetChanges on its schedule, the HTTP functions on the same routes, one processor per work queue.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const settings = options.settings ?? readSettings();
  const log = options.log ?? consoleLogger;
  const clock = options.clock ?? systemClock;
  const stats = new HostStats(clock.now());
  const configDir = path.resolve(options.configDir);
  const port = options.port ?? 7071;
  const mode = chosenMode(options, settings);
  // A broken config folder or a taken port is reported at once, not after Azurite has started.
  await loadConfigFolder(configDir, { connectionTypes: (options.registry ?? defaultConnectorRegistry()).connectionTypes() });
  await assertPortFree(port);
  // Application Insights when its connection string is set, and always the local metrics the
  // status page charts from.
  const telemetry = await createTelemetry(settings, process.env, { keepLocal: true, log, clock });
  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      settings,
      configDir,
      log: telemetry.log,
      metrics: telemetry.metrics,
      clock,
      registry: options.registry,
      onJobRun: (run) => stats.recordRun(run),
    });
  } catch (err) {
    await telemetry.close().catch(() => undefined);
    throw err;
  }
  const stopFns: Array<() => Promise<void>> = [];
  try {
    await runtime.init.ensureInitialized();
    await options.beforeStart?.(runtime);
    const concurrency = (p: Priority) => options.concurrency?.[p] ?? DEFAULT_CONCURRENCY[p];
    const processors = {} as Record<Priority, ProcessorView>;
    let worker: ProcessingWorker | undefined;
    if (mode === 'worker') {
      worker = await ProcessingWorker.start({
        data: { settings, configDir, concurrency: { high: concurrency('high'), normal: concurrency('normal'), low: concurrency('low') }, pollIntervalMs: WORKER_POLL_MS },
        metrics: telemetry.metrics,
        log: telemetry.log,
        onResult: (r) => stats.recordProcessed({ ...r, at: new Date(r.at) }),
      });
      const running = worker;
      for (const p of PRIORITIES) processors[p] = { get busy() { return running.busy(p); } };
      stopFns.push(() => running.stop());
    } else {
      const inline = {} as Record<Priority, QueueProcessor>;
      for (const priority of PRIORITIES) {
        const queue = settings.queues.work[priority];
        inline[priority] = processors[priority] = new QueueProcessor({
          bus: runtime.bus,
          queue,
          processor: runtime.processor,
          log,
          concurrency: concurrency(priority),
          onResult: (result, message) =>
            stats.recordProcessed({
              at: clock.now(),
              queue,
              jobName: result.jobName ?? 'unknown',
              outcome: result.outcome,
              disposition: result.disposition,
              error: result.error,
              messageId: message.messageId,
            }),
        });
        inline[priority].start();
      }
      stopFns.push(async () => {
        await Promise.all(PRIORITIES.map((p) => inline[p].stop()));
      });
    }

    let baseUrl = '';
    const durable = durableRoutes(runtime, () => baseUrl);
    stopFns.push(() => durable.driver.close());
    const routes: HttpRoute[] = [
      ...durable.routes,
      { method: 'POST', route: EXECUTE_JOB_ROUTE, handler: (input) => executeJobHandler(runtime, input) },
      { method: 'GET', route: 'health', handler: async () => ({ status: 200, body: { status: 'ok', startedAt: stats.startedAt.toISOString() } }) },
      // Earlier routes win: callers' routes can replace the status page's.
      ...(options.extraRoutes?.({ runtime, stats }) ?? []),
      ...statusRoutes({ runtime, stats }, { configDir }),
    ];
    const stopGauges = startGaugeSampler(
      {
        jobs: () => (runtime.init.isInitialized ? runtime.init.config.jobs : []),
        watermarks: runtime.watermarks,
        bus: runtime.bus,
        queues: settings.queues,
        metrics: runtime.metrics,
        clock,
        log,
      },
      15_000,
    );
    stopFns.push(async () => stopGauges());
    const server = new LocalHttpServer(routes, log);
    const url = await server.listen(port).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new ConfigError(portInUseMessage(port), { cause: err }) : err;
    });
    baseUrl = url;
    stopFns.unshift(() => server.close());

    if (!options.noSchedule) {
      // The scheduled requeue of parked messages: off unless the config folder's requeue file enables it.
      const requeue = { bus: runtime.bus, settings, jobs: () => runtime.init.config.jobs, clock, log: telemetry.log };
      stopFns.unshift(startScheduledRequeue(requeue, await loadRequeueConfig(configDir)));
      const scheduler = new DetectionScheduler({
        schedule: settings.getChangesSchedule,
        timeZone: settings.timeZone,
        clock,
        log,
        tick: () => runtime.detection.execute(),
      });
      scheduler.start();
      stopFns.unshift(() => scheduler.stop());
    }

    const drained = async ({ timeoutMs = 600_000, pollMs = 250 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      let quietChecks = 0;
      while (Date.now() < deadline) {
        // A worker given up on never drains: say why instead of waiting out the timeout.
        if (worker?.failure) throw worker.failure;
        let pending = PRIORITIES.reduce((n, p) => n + processors[p].busy, 0);
        for (const p of PRIORITIES) {
          const counts = await runtime.bus.counts(settings.queues.work[p]);
          pending += counts.active + counts.scheduled;
        }
        quietChecks = pending === 0 ? quietChecks + 1 : 0;
        if (quietChecks >= 2) return true;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      return false;
    };

    let stopping: Promise<void> | undefined;
    return {
      url,
      runtime,
      stats,
      processors,
      processing: mode,
      drained,
      stop: () =>
        (stopping ??= (async () => {
          for (const fn of stopFns) await fn().catch((err) => log.warn(`stopping: ${String(err)}`));
          await runtime.close();
          await telemetry.close();
        })()),
    };
  } catch (err) {
    for (const fn of stopFns) await fn().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    await telemetry.close().catch(() => undefined);
    throw err;
  }
}
