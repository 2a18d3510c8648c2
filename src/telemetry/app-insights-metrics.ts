import { systemClock, type Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { Logger } from './logger';
import type { Dimensions, MetricName, Metrics } from './metrics';

/** Severity of a trace sent to Application Insights. */
export type TraceSeverity = 'Information' | 'Warning' | 'Error';

/**
 * What the adapters need of the SDK's `TelemetryClient`, in our own shape (no SDK type leaves
 * this folder). {@link loadAppInsightsClient} makes the real one; tests pass a stub.
 */
export interface AppInsightsClient {
  /** Lands in `customMetrics` (`name`, `valueSum`/`valueCount`, `customDimensions`). */
  trackMetric(metric: { name: string; value: number; properties: Record<string, string> }): void;
  /** Lands in `traces` (`message`, `severityLevel`, `customDimensions`). */
  trackTrace(trace: { message: string; severity: TraceSeverity; properties: Record<string, string> }): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Creates the real client. The SDK is imported here and only here, lazily: it is large (~1.5 s to
 * load) and probes the Azure metadata endpoint on start, so nothing loads it without a
 * connection string. The client is isolated (`useGlobalProviders: false`): it sends what we
 * track and installs no global instrumentation.
 */
export async function loadAppInsightsClient(connectionString: string): Promise<AppInsightsClient> {
  const sdk = await import('applicationinsights');
  const client = new sdk.TelemetryClient(connectionString, { useGlobalProviders: false });
  const severities: Record<TraceSeverity, string> = {
    Information: sdk.KnownSeverityLevel.Information,
    Warning: sdk.KnownSeverityLevel.Warning,
    Error: sdk.KnownSeverityLevel.Error,
  };
  return {
    trackMetric: (m) => client.trackMetric({ name: m.name, value: m.value, properties: m.properties }),
    trackTrace: (t) => client.trackTrace({ message: t.message, severity: severities[t.severity], properties: t.properties }),
    flush: () => client.flush(),
    shutdown: () => client.shutdown(),
  };
}

export interface AppInsightsMetricsOptions {
  /** Where the adapter reports its own failures (once per failure streak). Default: none. */
  log?: Logger;
  /** Dimensions added to every point (e.g. `{ host: 'local' }`). Default none. */
  commonDimensions?: Dimensions;
  /** How long `flush()` waits for the SDK before giving up, ms. Default 10 000. */
  flushTimeoutMs?: number;
  /** Times the flush timeout. Default the system clock. */
  clock?: Clock;
}

/**
 * The Application Insights metrics adapter: every `track` becomes one `trackMetric` with the
 * dimensions as custom properties; the SDK aggregates and sends in the background.
 */
export class AppInsightsMetrics implements Metrics {
  private failing = false;
  /** Points handed to the SDK since the last completed flush: what a failed last flush may lose. */
  private sinceFlush = 0;

  constructor(
    private readonly client: AppInsightsClient,
    private readonly options: AppInsightsMetricsOptions = {},
  ) {}

  track(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    if (!Number.isFinite(value)) return;
    try {
      this.client.trackMetric({ name, value, properties: { ...this.options.commonDimensions, ...dimensions } });
      this.sinceFlush++;
      this.failing = false;
    } catch (err) {
      this.reportOnce(`metric ${name} not tracked: ${errorMessage(err)}`);
    }
  }

  /**
   * Sends what the SDK holds, waiting at most `timeoutMs` (default `flushTimeoutMs`). Never throws:
   * a failure or timeout is logged (every time: flushes happen only at shutdown) with the number of
   * points tracked since the last completed flush, which may be lost.
   */
  async flush(timeoutMs?: number): Promise<void> {
    const { clock = systemClock, flushTimeoutMs = 10_000 } = this.options;
    const points = this.sinceFlush;
    let failed = false;
    await settleWithin(this.client.flush(), timeoutMs ?? flushTimeoutMs, clock, (m) => {
      failed = true;
      this.options.log?.warn(`metrics not flushed: ${m}; up to ${points} points tracked since the last completed flush are lost`);
    });
    if (!failed) this.sinceFlush = Math.max(0, this.sinceFlush - points);
  }

  private reportOnce(message: string): void {
    if (!this.failing) this.options.log?.warn(message);
    this.failing = true;
  }
}

/** Waits for `work` at most `timeoutMs`; a failure or timeout is reported, never thrown. */
export async function settleWithin(work: Promise<void>, timeoutMs: number, clock: Clock, report: (message: string) => void): Promise<void> {
  const cancel = new AbortController();
  const timeout = clock.sleep(timeoutMs, cancel.signal).then(
    () => 'timeout' as const,
    () => 'cancelled' as const,
  );
  try {
    const result = await Promise.race([work.then(() => 'done' as const), timeout]);
    if (result === 'timeout') report(`gave up after ${timeoutMs} ms`);
  } catch (err) {
    report(errorMessage(err));
  } finally {
    cancel.abort();
  }
}
