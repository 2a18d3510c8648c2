import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAppInsightsClient } from '../../../src/telemetry/app-insights-metrics';
import { createTelemetry } from '../../../src/telemetry/create-telemetry';
import { APP_SETTINGS } from '../../../src/platform/app-settings';

const APPINSIGHTS_CONNECTION_SETTING = APP_SETTINGS.appInsights.name;
import { METRIC_NAMES } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { recordingLog, StubClient } from './telemetry-stubs';

/**
 * The real SDK is replaced by a recording stand-in: the factory runs only when something
 * requires `applicationinsights`, so `mockSdk.loads` shows whether the SDK was loaded at all.
 */
const mockSdk = {
  loads: 0,
  constructed: [] as Array<{ connectionString: string; options: unknown }>,
  metrics: [] as unknown[],
  traces: [] as unknown[],
};
jest.mock('applicationinsights', () => {
  mockSdk.loads++;
  class TelemetryClient {
    constructor(connectionString: string, options: unknown) {
      mockSdk.constructed.push({ connectionString, options });
    }
    trackMetric(m: unknown) {
      mockSdk.metrics.push(m);
    }
    trackTrace(t: unknown) {
      mockSdk.traces.push(t);
    }
    async flush() {}
    async shutdown() {}
  }
  return { TelemetryClient, KnownSeverityLevel: { Information: 'Information', Warning: 'Warning', Error: 'Error' } };
});

const CONNECTION = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://example.invalid/';

describe('createTelemetry', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hw-telemetry-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('without a connection string: the local adapter, and the SDK is never loaded', async () => {
    const clock = new FakeClock('2026-03-04T05:06:07Z');
    const telemetry = await createTelemetry({ dataDir }, { [APPINSIGHTS_CONNECTION_SETTING]: '  ' }, { clock, log: recordingLog() });
    telemetry.metrics.track(METRIC_NAMES.changesDetected, 5, { job: 'crm-accounts' });
    await telemetry.close();
    expect(telemetry.destination).toBe('local');
    expect(mockSdk.loads).toBe(0);
    expect(telemetry.metrics.pointsSince?.(new Date(0)).map((p) => p.value)).toEqual([5]);
    const line = JSON.parse(readFileSync(path.join(dataDir, 'metrics', 'metrics-2026-03-04.jsonl'), 'utf8').trim());
    expect(line).toEqual({ at: '2026-03-04T05:06:07.000Z', name: 'ChangesDetected', value: 5, count: 1, min: 5, max: 5, dimensions: { job: 'crm-accounts' } });
  });

  it('with a connection string: metrics and log lines go to the client; close flushes and shuts it down', async () => {
    const client = new StubClient();
    const loaded: string[] = [];
    const log = recordingLog();
    const telemetry = await createTelemetry({ dataDir }, { [APPINSIGHTS_CONNECTION_SETTING]: CONNECTION }, {
      log,
      clock: new FakeClock(),
      loadClient: async (cs) => {
        loaded.push(cs);
        return client;
      },
    });
    telemetry.metrics.track(METRIC_NAMES.jobRunDurationMs, 120, { job: 'crm-accounts', outcome: 'Succeeded' });
    telemetry.log.warn('message failed', { correlationId: 'c-1', deliveryCount: 2 });
    await telemetry.close();
    expect(telemetry.destination).toBe('applicationInsights');
    expect(loaded).toEqual([CONNECTION]);
    expect(client.metrics).toEqual([{ name: 'JobRunDurationMs', value: 120, properties: { job: 'crm-accounts', outcome: 'Succeeded' } }]);
    expect(client.traces).toEqual([{ message: 'message failed', severity: 'Warning', properties: { correlationId: 'c-1', deliveryCount: '2' } }]);
    expect(log.lines).toEqual(['warn message failed']);
    expect([client.flushes, client.shutdowns]).toEqual([1, 1]);
    expect(telemetry.metrics.pointsSince).toBeUndefined();
  });

  it('close ends within its time when the exporter hangs: half for the flush, the rest for the shutdown, both reported (fake clock)', async () => {
    const client = new StubClient();
    client.flushImpl = () => new Promise<void>(() => {});
    client.shutdownImpl = () => new Promise<void>(() => {});
    const log = recordingLog();
    const clock = new FakeClock();
    const telemetry = await createTelemetry({ dataDir }, { [APPINSIGHTS_CONNECTION_SETTING]: CONNECTION }, { echoLog: false, localFile: false, log, clock, loadClient: async () => client });
    telemetry.metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: 'Success' });
    let done = false;
    const closing = telemetry.close(4_000).then(() => (done = true));
    await clock.advance(3_999);
    expect(done).toBe(false);
    await clock.advance(1);
    await closing;
    expect(log.lines).toEqual([
      'warn metrics not flushed: gave up after 2000 ms; up to 1 points tracked since the last completed flush are lost',
      'warn Application Insights client not shut down: gave up after 2000 ms; traces and metrics it still held are lost',
    ]);
    expect([client.flushes, client.shutdowns]).toEqual([1, 1]);
  });

  it('echoLog false: log lines go to Application Insights only, not also to the given log', async () => {
    const client = new StubClient();
    const log = recordingLog();
    const telemetry = await createTelemetry({ dataDir }, { [APPINSIGHTS_CONNECTION_SETTING]: CONNECTION }, {
      echoLog: false,
      localFile: false,
      log,
      clock: new FakeClock(),
      loadClient: async () => client,
    });
    telemetry.log.info('job crm-accounts: Succeeded', { job: 'crm-accounts' });
    await telemetry.close();
    expect(client.traces).toEqual([{ message: 'job crm-accounts: Succeeded', severity: 'Information', properties: { job: 'crm-accounts' } }]);
    expect(log.lines).toEqual([]);
  });

  it('keepLocal: Application Insights and the readable local adapter both get every point', async () => {
    const client = new StubClient();
    const telemetry = await createTelemetry({ dataDir }, { [APPINSIGHTS_CONNECTION_SETTING]: CONNECTION }, {
      keepLocal: true,
      localFile: false,
      log: recordingLog(),
      clock: new FakeClock(),
      loadClient: async () => client,
    });
    telemetry.metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: 'Failed' });
    expect(client.metrics).toHaveLength(1);
    expect(telemetry.metrics.pointsSince?.(new Date(0), METRIC_NAMES.messagesProcessed).map((p) => p.dimensions.outcome)).toEqual(['Failed']);
    await telemetry.close();
  });
});

describe('loadAppInsightsClient', () => {
  it('loads the SDK lazily and makes an isolated TelemetryClient for the connection string', async () => {
    const before = mockSdk.loads;
    const client = await loadAppInsightsClient(CONNECTION);
    expect(mockSdk.loads).toBe(before + 1);
    expect(mockSdk.constructed.at(-1)).toEqual({ connectionString: CONNECTION, options: { useGlobalProviders: false } });
    client.trackMetric({ name: 'QueueDepth', value: 3, properties: { queue: 'sbqhigh', role: 'work', state: 'deadLetter' } });
    client.trackTrace({ message: 'hello', severity: 'Error', properties: { correlationId: 'c-2' } });
    expect(mockSdk.metrics.at(-1)).toEqual({ name: 'QueueDepth', value: 3, properties: { queue: 'sbqhigh', role: 'work', state: 'deadLetter' } });
    expect(mockSdk.traces.at(-1)).toEqual({ message: 'hello', severity: 'Error', properties: { correlationId: 'c-2' } });
  });
});

describe('the SDK stays out of every other module', () => {
  it('only app-insights-metrics.ts mentions applicationinsights, and only as a dynamic import', () => {
    const root = path.resolve(__dirname, '../../..');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
      );
    const mentions = ['src', 'functions', 'connectors', 'tools']
      .filter((d) => existsSync(path.join(root, d)))
      .flatMap((d) => files(path.join(root, d)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /['"]applicationinsights['"]/.test(line))
          .map((line) => `${path.relative(root, file)}: ${line.trim()}`),
      );
    expect(mentions).toEqual(["src/telemetry/app-insights-metrics.ts: const sdk = await import('applicationinsights');"]);
  });
});
