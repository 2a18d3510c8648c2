import type { AppInsightsClient } from '../../../src/telemetry/app-insights-metrics';
import type { Logger } from '../../../src/telemetry/logger';

/** Records what the adapter hands to the SDK; nothing is sent anywhere. */
export class StubClient implements AppInsightsClient {
  readonly metrics: Array<{ name: string; value: number; properties: Record<string, string> }> = [];
  readonly traces: Array<{ message: string; severity: string; properties: Record<string, string> }> = [];
  failTrack?: Error;
  flushImpl: () => Promise<void> = async () => {};
  shutdownImpl: () => Promise<void> = async () => {};
  flushes = 0;
  shutdowns = 0;
  trackMetric(m: { name: string; value: number; properties: Record<string, string> }): void {
    if (this.failTrack) throw this.failTrack;
    this.metrics.push(m);
  }
  trackTrace(t: { message: string; severity: string; properties: Record<string, string> }): void {
    this.traces.push(t);
  }
  flush(): Promise<void> {
    this.flushes++;
    return this.flushImpl();
  }
  shutdown(): Promise<void> {
    this.shutdowns++;
    return this.shutdownImpl();
  }
}

export function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}
