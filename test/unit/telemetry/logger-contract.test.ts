import { appInsightsLogger } from '../../../src/telemetry/app-insights-logger';
import { consoleLogger, jsonLinesLogger } from '../../../src/telemetry/logger';
import { runLoggerContract, type LoggedEntry } from '../../contract/logger.contract';
import { recordingLog, StubClient } from './telemetry-stubs';

const LEVELS = { log: 'info', warn: 'warn', error: 'error' } as const;

/** The local host's and the Functions worker's console lines: `[level] message {context}`. */
runLoggerContract('consoleLogger', () => {
  const entries: LoggedEntry[] = [];
  const spies = (Object.keys(LEVELS) as Array<keyof typeof LEVELS>).map((method) =>
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      const [, level, message, context] = /^\[(\w+)\] ([\s\S]*?)(?: (\{.*\}))?$/.exec(String(args[0])) ?? [];
      expect(level).toBe(LEVELS[method]);
      entries.push({ level: LEVELS[method], message, context: context ? (JSON.parse(context) as Record<string, unknown>) : {} });
    }),
  );
  return { log: consoleLogger, entries: () => entries, close: () => spies.forEach((spy) => spy.mockRestore()) };
});

/** JSON lines for log collectors: one object per line. */
runLoggerContract('jsonLinesLogger', () => {
  const lines: string[] = [];
  const log = jsonLinesLogger((line) => lines.push(line), { now: () => new Date('2026-03-01T08:00:00Z') });
  return {
    log,
    entries: () =>
      lines.map((line) => {
        expect(line).not.toContain('\n');
        const { at, level, message, ...context } = JSON.parse(line) as Record<string, unknown>;
        expect(at).toBe('2026-03-01T08:00:00.000Z');
        return { level: level as LoggedEntry['level'], message: String(message), context };
      }),
  };
});

const SEVERITIES = { Information: 'info', Warning: 'warn', Error: 'error' } as const;

/** The Functions app with Application Insights on: traces with custom dimensions, no echo. */
runLoggerContract('appInsightsLogger (echo off)', () => {
  const client = new StubClient();
  const next = recordingLog();
  return {
    log: appInsightsLogger(client, next, { echo: false }),
    entries: () => {
      expect(next.lines).toEqual([]);
      return client.traces.map((t) => ({ level: SEVERITIES[t.severity as keyof typeof SEVERITIES], message: t.message, context: t.properties }));
    },
  };
});
