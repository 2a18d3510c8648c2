import type { AppInsightsClient, TraceSeverity } from './app-insights-metrics';
import type { Logger } from './logger';

/**
 * Sends every log line to Application Insights as a trace whose context becomes
 * `customDimensions` (so `traces | where customDimensions.correlationId == "…"` finds one
 * message's lines), and passes it on to `next` (the console, which the Functions host also
 * collects). Telemetry never fails the caller: a throwing client is ignored.
 */
export function appInsightsLogger(client: AppInsightsClient, next: Logger): Logger {
  const send = (severity: TraceSeverity, message: string, context?: Record<string, unknown>) => {
    try {
      client.trackTrace({ message, severity, properties: toProperties(context) });
    } catch {
      // The line still reaches `next`; a broken telemetry client must not break logging.
    }
  };
  return {
    info: (m, c) => {
      send('Information', m, c);
      next.info(m, c);
    },
    warn: (m, c) => {
      send('Warning', m, c);
      next.warn(m, c);
    },
    error: (m, c) => {
      send('Error', m, c);
      next.error(m, c);
    },
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
