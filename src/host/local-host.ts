import type { HighwaterConfig } from '../model/config';
import path from 'node:path';
import type { ConnectorRegistry } from '../../connectors/base/registry';
import { defaultConnectorRegistry } from '../../connectors/default-registry';
import { loadConfigFolder } from '../config/load-config';
import type { HttpRoute } from '../http/http-types';
import { systemClock, type Clock } from '../platform/clock';
import { lockDataDir } from '../platform/data-dir-lock';
import type { Priority } from '../platform/queue-topology';
import { readSettings, type Settings } from '../platform/settings';
import { startGaugeSampler } from '../runtime/gauges';
import type { TargetHealthView } from '../process/target-health';
import { createRuntime, type Runtime } from '../runtime/runtime';
import { createTelemetry } from '../telemetry/create-telemetry';
import { consoleLogger, type Logger } from '../telemetry/logger';
import { durableRoutes } from './durable-routes';
import { HostStats } from './host-stats';
import { IncidentMonitor } from './incidents/incident-monitor';
import type { Incident } from './incidents/incident-lifecycle';
import { hostRoutes, httpServerComponent } from './http-component';
import { resource, startInOrder, step, type LifecycleComponent } from './lifecycle';
import type { ProcessingMode } from './processing-mode';
import { processorsComponent, waitUntilDrained, type ProcessorView } from './processors-component';
import { detectionScheduleComponent, requeueComponent, subscriptionsComponent } from './schedule-components';
import { assertPortFree, chosenMode, runStartCheck } from './start-checks';

export interface LocalHostOptions {
  /**
   * Configuration folder (files mode). Absent: the configuration tables, filled by
   * `highwater config push` (tables mode), as the Functions app reads them.
   */
  configDir?: string;
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
  /** How often the gauges are sampled and the incidents evaluated, ms. Default 15 000. */
  gaugeIntervalMs?: number;
  /**
   * Check the configuration against its systems when starting (`highwater check`), logging what
   * it finds as warnings. Default true.
   */
  checkConnections?: boolean;
}

export interface LocalHost {
  /** `http://127.0.0.1:PORT` */
  url: string;
  runtime: Runtime;
  stats: HostStats;
  processors: Record<Priority, ProcessorView>;
  /** Where the processors run. */
  processing: ProcessingMode;
  /** The outage mode of whoever processes (the worker's, or the runtime's inline): which targets wait, and why. */
  targetHealth: TargetHealthView;
  /** The incidents the status page shows (evaluated at every gauge sample). */
  incidents: { list(): Incident[] };
  /**
   * Resolves true when every work queue is empty and nothing is in flight (checked twice in a
   * row), false at the timeout. @throws the processing worker's failure once it is given up on.
   */
  drained(options?: { timeoutMs?: number; pollMs?: number }): Promise<boolean>;
  /** Stops the schedule, the HTTP server and the processors (in-flight messages finish), then closes the runtime. */
  stop(): Promise<void>;
}

/** How often the host samples its gauges (queue depths, watermark ages), ms. */
const GAUGE_INTERVAL_MS = 15_000;

/**
 * How long a host that took the data folder over from a dead one records every applied change:
 * the longest a message lock can last (5 minutes, as on Service Bus; the local bus's is 1 minute)
 * — by then every batch the dead host held has come back. It costs a table write per applied
 * change for that time, after an unclean stop only.
 */
const RECORD_ALL_AFTER_TAKEOVER_MS = 5 * 60_000;

/**
 * The local host (docs/architecture.md, Hosts): one process running the same handlers as the Functions app —
 * GetChanges on its schedule, the HTTP functions on the same routes, one processor per work queue.
 * It only composes: each part is a lifecycle component (lifecycle.ts), started in the order
 * below and stopped in reverse, so nothing stops while a part started after it still runs.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const settings = options.settings ?? readSettings();
  const log = options.log ?? consoleLogger;
  const clock = options.clock ?? systemClock;
  const stats = new HostStats(clock.now());
  const configDir = options.configDir === undefined ? undefined : path.resolve(options.configDir);
  const port = options.port ?? 7071;
  const mode = chosenMode(options, settings);
  // A broken config folder or a taken port is reported at once, not after Azurite has started.
  // The configuration tables can only be read once storage is open (the `prepared` step).
  const config = configDir === undefined ? undefined : await loadConfigFolder(configDir, { connectionTypes: (options.registry ?? defaultConnectorRegistry()).connectionTypes() });
  // A second host on this data folder is refused before it touches the folder's bus and tables.
  const lock = lockDataDir(settings.dataDir);
  try {
    await assertPortFree(port);
  } catch (err) {
    lock.release();
    throw err;
  }
  const dataDirLock = resource('the data folder lock', async () => lock, async (l) => l.release());
  // The host before this one died holding locked batches: they come back when their locks expire,
  // and every change applied until then is recorded, so that an old one cannot overwrite it.
  const recordAllAppliedUntil = lock.tookOver ? new Date(clock.now().getTime() + RECORD_ALL_AFTER_TAKEOVER_MS) : undefined;
  if (recordAllAppliedUntil) log.warn(`the host before this one on ${settings.dataDir} stopped without releasing it: until ${recordAllAppliedUntil.toISOString()} every applied change is recorded, so that the batches it held, delivered again, cannot overwrite newer changes`);
  // What `highwater check` finds is logged as warnings; the host starts all the same.
  const check = (loaded: () => HighwaterConfig) =>
    resource(
      'the connection check',
      async () => ({ done: options.checkConnections === false ? Promise.resolve() : runStartCheck(loaded(), { ...(configDir ? { configDir } : {}), resolveSecret: (name) => process.env[name], log }) }),
      (started) => started.done,
    );

  // Application Insights when its connection string is set, and always the local metrics the
  // status page charts from.
  const telemetry = resource('telemetry', () => createTelemetry(settings, process.env, { keepLocal: true, log, clock }), (t) => t.close());
  const runtime = resource(
    'the runtime',
    () =>
      createRuntime({
        settings,
        configDir,
        log: telemetry.value.log,
        metrics: telemetry.value.metrics,
        clock,
        registry: options.registry,
        onJobRun: (run) => stats.recordRun(run),
        processorInstances: 'one',
        ...(recordAllAppliedUntil ? { recordAllAppliedUntil } : {}),
      }),
    (r) => r.close(),
  );
  const prepared = step('the configuration', async () => {
    await runtime.value.init.ensureInitialized();
    await options.beforeStart?.(runtime.value);
  });
  // Evaluated at every gauge sample, on what the sample found, the runs table and the outage mode
  // of whoever processes (the worker's once it runs: read lazily).
  let incidents: IncidentMonitor | undefined;
  const gauges = resource(
    'the gauge sampler',
    async () => {
      const rt = runtime.value;
      const jobs = () => (rt.init.isInitialized ? rt.init.config.jobs : []);
      const monitor = new IncidentMonitor({ jobs, runLog: rt.runLog, targetHealth: () => processors.targetHealth ?? rt.targetHealth, clock, log });
      incidents = monitor;
      const sources = { jobs, watermarks: rt.watermarks, bus: rt.bus, queues: settings.queues, timeZone: settings.timeZone };
      return startGaugeSampler({ ...sources, metrics: rt.metrics, clock, log }, options.gaugeIntervalMs ?? GAUGE_INTERVAL_MS, (sample) => monitor.observe(sample));
    },
    async (stopSampler) => stopSampler(),
  );
  // Its status URLs name the server's URL, read when a route answers (the server listens by then).
  const durable = resource('the durable driver', async () => durableRoutes(runtime.value, () => server.value.url), (d) => d.driver.close());
  const processors = processorsComponent({ mode, settings, configDir, concurrency: options.concurrency, runtime, telemetry, stats, log, clock, ...(recordAllAppliedUntil ? { recordAllAppliedUntil } : {}) });
  const server = httpServerComponent({
    port,
    log,
    routes: () => hostRoutes({ runtime: runtime.value, stats, configDir, durable: durable.value, extraRoutes: options.extraRoutes, targetHealth: processors.targetHealth, incidents: { list: () => incidents?.list() ?? [] } }),
  });
  const schedule = { settings, configDir, runtime, clock, log, telemetryLog: () => telemetry.value.log };
  const timers: LifecycleComponent[] = options.noSchedule ? [] : [requeueComponent(schedule), detectionScheduleComponent(schedule), subscriptionsComponent(schedule)];

  // Files mode checks at once, beside Azurite's start; tables mode once the tables are read.
  const [checkEarly, checkLate] = config ? [[check(() => config)], []] : [[], [check(() => runtime.value.init.config)]];
  const stop = await startInOrder([dataDirLock, ...checkEarly, telemetry, runtime, prepared, ...checkLate, gauges, durable, processors, server, ...timers], {
    onStopError: (err) => log.warn(`stopping: ${String(err)}`),
  });
  return {
    url: server.value.url,
    runtime: runtime.value,
    stats,
    processors: processors.views,
    processing: mode,
    targetHealth: processors.targetHealth ?? runtime.value.targetHealth,
    incidents: { list: () => incidents?.list() ?? [] },
    drained: (drainOptions) => waitUntilDrained(processors, { bus: runtime.value.bus, queues: settings.queues }, drainOptions),
    stop,
  };
}
