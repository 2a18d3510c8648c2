import type { AppInsightsClient, TraceSeverity } from './app-insights-metrics';
import type { Logger } from './logger';
import { scrubContext, scrubMessage } from './log-scrub';

export interface AppInsightsLoggerOptions {
  /**
   * Also pass every line to `next`. Default true (the local host: its console is watched). The
   * Functions app passes false: the Node worker forwards console output to Application Insights
   * as traces itself, so writing both would store every line twice.
   */
  echo?: boolean;
}

/**
 * Sends every log line (scrubbed of secrets) to Application Insights as a trace whose context becomes
 * `customDimensions` (so `traces | where customDimensions.correlationId == "…"` finds one
 * message's lines), and passes it on to `next` unless `echo` is false. Telemetry never fails the
 * caller: a line the client throws on goes to `next` instead, so it is not lost.
 */
export function appInsightsLogger(client: AppInsightsClient, next: Logger, options: AppInsightsLoggerOptions = {}): Logger {
  const echo = options.echo ?? true;
  const line = (severity: TraceSeverity, write: (m: string, c?: Record<string, unknown>) => void) => (raw: string, rawContext?: Record<string, unknown>) => {
    const message = scrubMessage(raw);
    const context = scrubContext(rawContext);
    let sent = false;
    try {
      client.trackTrace({ message, severity, properties: toProperties(context) });
      sent = true;
    } catch {
      // A broken telemetry client must not break logging: the line takes the other path.
    }
    if (echo || !sent) write(message, context);
  };
  return {
    info: line('Information', (m, c) => next.info(m, c)),
    warn: line('Warning', (m, c) => next.warn(m, c)),
    error: line('Error', (m, c) => next.error(m, c)),
  };
}

/** Custom dimensions are strings: objects become JSON, null/undefined are left out. */
export function toProperties(context: Record<string, unknown> | undefined): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(context ?? {})) {
    if (value === undefined || value === null) continue;
    properties[key] = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value);
  }
  return properties;
}
