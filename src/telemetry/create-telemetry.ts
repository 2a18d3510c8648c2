import path from 'node:path';
import type { Settings } from '../platform/settings';
import { APP_SETTINGS } from '../platform/app-settings';
import { readSetting } from '../platform/setting-spec';
import { systemClock, type Clock } from '../platform/clock';
import { deadlineAfter } from '../platform/deadline';
import { appInsightsLogger } from './app-insights-logger';
import { AppInsightsMetrics, loadAppInsightsClient, settleWithin, type AppInsightsClient } from './app-insights-metrics';
import { FanOutMetrics } from './fan-out-metrics';
import { LocalMetrics } from './local-metrics';
import { consoleLogger, type Logger } from './logger';
import type { Metrics, MetricsReader } from './metrics';

/** Default time `Telemetry.close` may take in all (flush, then SDK shutdown), ms. */
const TELEMETRY_CLOSE_MS = 4_000;

export interface TelemetryOptions {
  /**
   * Also keep the local adapter (memory + JSON-lines file) when Application Insights is on: the
   * local host's status page charts from it. Default false (the Functions app).
   */
  keepLocal?: boolean;
  /** Write local metrics to `<dataDir>/metrics/metrics-YYYY-MM-DD.jsonl`. Default true. */
  localFile?: boolean;
  /** Where log lines go (and, with Application Insights, are copied from). Default the console. */
  log?: Logger;
  /**
   * With Application Insights on, also write every line to `log`. Default true (the local host).
   * The Functions app passes false: its worker forwards console output to Application Insights
   * as traces too, and one path means each line is stored once.
   */
  echoLog?: boolean;
  /** How long a metrics flush waits for the SDK before giving up, ms. Default 10 000. */
  flushTimeoutMs?: number;
  /** Default the system clock. */
  clock?: Clock;
  /** Makes the client; default lazily imports `applicationinsights`. Tests pass a stub. */
  loadClient?: (connectionString: string) => Promise<AppInsightsClient>;
}

export interface Telemetry {
  /** Reads back what was tracked (the local adapter's points); present unless App Insights runs alone. */
  metrics: Metrics & Partial<MetricsReader>;
  log: Logger;
  destination: 'applicationInsights' | 'local';
  /**
   * Flushes, stops timers and shuts the SDK client down, within `withinMs` in all (default
   * {@link TELEMETRY_CLOSE_MS}): an exporter that hangs cannot hold a shutdown longer. Never
   * throws; what could not be sent is logged to the base logger (the console), not to the SDK.
   */
  close(withinMs?: number): Promise<void>;
}

/**
 * Chooses the metrics adapter and the logger: Application Insights when
 * `APPLICATIONINSIGHTS_CONNECTION_STRING` is set (the SDK is loaded only then), else the local
 * adapter (memory + a JSON-lines file under the data folder).
 */
export async function createTelemetry(settings: Pick<Settings, 'dataDir'>, env: NodeJS.ProcessEnv = process.env, options: TelemetryOptions = {}): Promise<Telemetry> {
  const clock = options.clock ?? systemClock;
  const baseLog = options.log ?? consoleLogger;
  const connectionString = readSetting(env, APP_SETTINGS.appInsights);
  const local = (withFile: boolean) =>
    new LocalMetrics({ clock, log: baseLog, dir: withFile && options.localFile !== false ? path.join(settings.dataDir, 'metrics') : undefined });

  if (!connectionString) {
    const metrics = local(true);
    return { metrics, log: baseLog, destination: 'local', close: () => metrics.close() };
  }

  const client = await (options.loadClient ?? loadAppInsightsClient)(connectionString);
  const remote = new AppInsightsMetrics(client, { log: baseLog, clock, ...(options.flushTimeoutMs === undefined ? {} : { flushTimeoutMs: options.flushTimeoutMs }) });
  const kept = options.keepLocal ? local(true) : undefined;
  const metrics = kept ? new FanOutMetrics([remote, kept], kept) : remote;
  return {
    metrics,
    log: appInsightsLogger(client, baseLog, { echo: options.echoLog ?? true }),
    destination: 'applicationInsights',
    async close(withinMs = TELEMETRY_CLOSE_MS) {
      const deadline = deadlineAfter(clock, withinMs);
      await kept?.close();
      // Half of what is left for the flush, the rest for the shutdown (which exports once more):
      // when the exporter hangs, both give up and the close still ends by the deadline.
      await remote.flush(deadline.remainingMs() / 2);
      await settleWithin(client.shutdown(), deadline.remainingMs(), clock, (m) =>
        baseLog.warn(`Application Insights client not shut down: ${m}; traces and metrics it still held are lost`),
      );
    },
  };
}
