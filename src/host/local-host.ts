import path from 'node:path';
import type { ConnectorRegistry } from '../../connectors/base/registry';
import { readSettings, type Settings } from '../config/settings';
import { executeJobHandler } from '../http/execute-job-handler';
import type { HttpRoute } from '../http/http-types';
import type { Clock } from '../model/clock';
import { systemClock } from '../model/clock';
import { PRIORITIES, type Priority } from '../model/job';
import { createRuntime, type Runtime } from '../runtime/runtime';
import { createTelemetry } from '../telemetry/create-telemetry';
import { startGaugeSampler } from '../telemetry/gauges';
import { statusRoutes } from './status/status-routes';
import { consoleLogger, type Logger } from '../telemetry/logger';
import { DetectionScheduler } from './detection-scheduler';
import { durableRoutes } from './durable-routes';
import { HostStats } from './host-stats';
import { LocalHttpServer } from './http-server';
import { QueueProcessor } from './queue-processor';

/** Messages in flight per work queue (in batches of up to 256, as the Functions app's `maxMessageBatchSize`). */
export const DEFAULT_CONCURRENCY: Record<Priority, number> = { high: 512, normal: 512, low: 128 };

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
}

export interface LocalHost {
  /** `http://127.0.0.1:PORT` */
  url: string;
  runtime: Runtime;
  stats: HostStats;
  processors: Record<Priority, QueueProcessor>;
  /** Resolves when every work queue is empty and nothing is in flight (checked twice in a row). */
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
    const processors = {} as Record<Priority, QueueProcessor>;
    for (const priority of PRIORITIES) {
      const queue = settings.queues.work[priority];
      processors[priority] = new QueueProcessor({
        bus: runtime.bus,
        queue,
        processor: runtime.processor,
        log,
        concurrency: options.concurrency?.[priority] ?? DEFAULT_CONCURRENCY[priority],
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
      processors[priority].start();
    }
    stopFns.push(async () => {
      await Promise.all(PRIORITIES.map((p) => processors[p].stop()));
    });

    let baseUrl = '';
    const durable = durableRoutes(runtime, () => baseUrl);
    stopFns.push(() => durable.driver.close());
    const routes: HttpRoute[] = [
      ...durable.routes,
      { method: 'POST', route: 'jobs/{name}/execute', handler: (input) => executeJobHandler(runtime, input) },
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
    const url = await server.listen(options.port ?? 7071);
    baseUrl = url;
    stopFns.unshift(() => server.close());

    if (!options.noSchedule) {
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
