import { JobActionType } from '../../../src/model/job';
import { appInsightsLogger, toProperties } from '../../../src/telemetry/app-insights-logger';
import { messageLogContext, receivedLogContext } from '../../../src/telemetry/log-context';
import { consoleLogger, jsonLinesLogger, withContext } from '../../../src/telemetry/logger';
import { recordingLog, StubClient } from './telemetry-stubs';

describe('withContext', () => {
  it('adds the context to every line; per-call context wins', () => {
    const lines: unknown[] = [];
    const base = { info: (m: string, c?: Record<string, unknown>) => lines.push(['info', m, c]), warn: () => {}, error: (m: string, c?: Record<string, unknown>) => lines.push(['error', m, c]) };
    const log = withContext(base, { correlationId: 'c-1', job: 'a' });
    log.info('received');
    log.error('failed', { job: 'b', error: 'boom' });
    expect(lines).toEqual([
      ['info', 'received', { correlationId: 'c-1', job: 'a' }],
      ['error', 'failed', { correlationId: 'c-1', job: 'b', error: 'boom' }],
    ]);
  });
});

describe('jsonLinesLogger', () => {
  it('writes one JSON object per line; context cannot overwrite the line’s own fields', () => {
    const lines: string[] = [];
    const log = jsonLinesLogger((l) => lines.push(l), { now: () => new Date('2026-01-01T00:00:00Z') });
    log.warn('slow', { correlationId: 'c-9', message: 'shadow', durationMs: 1200 });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { at: '2026-01-01T00:00:00.000Z', level: 'warn', message: 'slow', correlationId: 'c-9', 'ctx.message': 'shadow', durationMs: 1200 },
    ]);
  });
});

describe('appInsightsLogger', () => {
  it('sends traces with string custom dimensions and passes every line on', () => {
    const client = new StubClient();
    const next = recordingLog();
    const log = appInsightsLogger(client, next);
    log.info('processed', { correlationId: 'c-1', durationMs: 12, at: new Date('2026-01-01T00:00:00Z'), nothing: undefined, none: null, nested: { a: 1 } });
    log.error('failed');
    expect(client.traces).toEqual([
      { message: 'processed', severity: 'Information', properties: { correlationId: 'c-1', durationMs: '12', at: '2026-01-01T00:00:00.000Z', nested: '{"a":1}' } },
      { message: 'failed', severity: 'Error', properties: {} },
    ]);
    expect(next.lines).toEqual(['info processed', 'error failed']);
  });

  it('a throwing client does not stop the line reaching the next logger', () => {
    const client = new StubClient();
    client.trackTrace = () => {
      throw new Error('sdk broken');
    };
    const next = recordingLog();
    appInsightsLogger(client, next).warn('still logged');
    expect(next.lines).toEqual(['warn still logged']);
  });

  it('echo false (the Functions app): one path — the trace only, nothing to the console', () => {
    const client = new StubClient();
    const next = recordingLog();
    const log = appInsightsLogger(client, next, { echo: false });
    log.info('no job due');
    log.warn('slow', { job: 'a' });
    log.error('failed');
    expect(client.traces.map((t) => `${t.severity} ${t.message}`)).toEqual(['Information no job due', 'Warning slow', 'Error failed']);
    expect(next.lines).toEqual([]);
  });

  it('echo false: a line the client throws on goes to the next logger instead of being lost', () => {
    const client = new StubClient();
    client.trackTrace = () => {
      throw new Error('sdk broken');
    };
    const next = recordingLog();
    appInsightsLogger(client, next, { echo: false }).error('still logged once');
    expect(next.lines).toEqual(['error still logged once']);
  });

  it('toProperties of nothing is empty', () => {
    expect(toProperties(undefined)).toEqual({});
  });
});

describe('log context', () => {
  it('messageLogContext carries the correlation id and identity of a change, no field values', () => {
    const context = messageLogContext({ correlationId: 'c-7', jobName: 'crm-accounts', sourceKey: '42', action: JobActionType.NewUpdate, changeTracker: '2026-01-01T00:00:00.0000000Z' });
    expect(context).toEqual({ correlationId: 'c-7', job: 'crm-accounts', sourceKey: '42', action: 'NewUpdate', changeTracker: '2026-01-01T00:00:00.0000000Z' });
  });

  it('receivedLogContext takes the correlation id from the broker property', () => {
    expect(receivedLogContext({ correlationId: 'c-8', messageId: 'm-1', deliveryCount: 3 }, 'sbqhigh')).toEqual({ correlationId: 'c-8', messageId: 'm-1', queue: 'sbqhigh', deliveryCount: 3 });
    expect(receivedLogContext({ messageId: 'm-2', deliveryCount: 1 }, 'sbqlow')).toEqual({ messageId: 'm-2', queue: 'sbqlow', deliveryCount: 1 });
  });
});

describe('consoleLogger', () => {
  it('shows control characters as escapes and indents continuation lines, so a value cannot forge an entry', () => {
    const written: string[] = [];
    const spy = jest.spyOn(console, 'warn').mockImplementation((line: string) => void written.push(line));
    try {
      consoleLogger.warn('row C-1: bad name "x\n[error] host compromised\u001b]0;owned\u0007"', { job: 'crm' });
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual(['[warn] row C-1: bad name "x\n    [error] host compromised\\x1b]0;owned\\x07" {"job":"crm"}']);
  });
});
