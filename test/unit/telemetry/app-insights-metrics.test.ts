import { AppInsightsMetrics } from '../../../src/telemetry/app-insights-metrics';
import { METRIC_NAMES } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { recordingLog, StubClient } from './telemetry-stubs';

describe('AppInsightsMetrics', () => {
  it('sends each point as one trackMetric with the dimensions as properties', () => {
    const client = new StubClient();
    const metrics = new AppInsightsMetrics(client);
    metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: 'crm-accounts', queue: 'sbqhigh', outcome: 'Success' });
    metrics.track(METRIC_NAMES.changesDetected, 42, { job: 'crm-accounts' });
    expect(client.metrics).toEqual([
      { name: 'MessagesProcessed', value: 1, properties: { job: 'crm-accounts', queue: 'sbqhigh', outcome: 'Success' } },
      { name: 'ChangesDetected', value: 42, properties: { job: 'crm-accounts' } },
    ]);
  });

  it('adds common dimensions, which a point’s own dimensions override', () => {
    const client = new StubClient();
    const metrics = new AppInsightsMetrics(client, { commonDimensions: { host: 'local', job: 'x' } });
    metrics.track(METRIC_NAMES.watermarkLagSeconds, 30, { job: 'crm-contacts' });
    expect(client.metrics[0].properties).toEqual({ host: 'local', job: 'crm-contacts' });
  });

  it('does not send NaN or infinite values', () => {
    const client = new StubClient();
    const metrics = new AppInsightsMetrics(client);
    metrics.track(METRIC_NAMES.watermarkLagSeconds, Number.NaN, { job: 'a' });
    metrics.track(METRIC_NAMES.watermarkLagSeconds, Number.POSITIVE_INFINITY, { job: 'a' });
    expect(client.metrics).toEqual([]);
  });

  it('never throws when the SDK throws, and reports once per failure streak', () => {
    const client = new StubClient();
    const log = recordingLog();
    const metrics = new AppInsightsMetrics(client, { log });
    client.failTrack = new Error('exporter gone');
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    client.failTrack = undefined;
    metrics.track(METRIC_NAMES.changesDetected, 3, { job: 'a' });
    client.failTrack = new Error('exporter gone again');
    metrics.track(METRIC_NAMES.changesDetected, 4, { job: 'a' });
    expect(log.lines).toEqual(['warn metric ChangesDetected not tracked: exporter gone', 'warn metric ChangesDetected not tracked: exporter gone again']);
    expect(client.metrics.map((m) => m.value)).toEqual([3]);
  });

  it('flush waits for the SDK', async () => {
    const client = new StubClient();
    let flushed = false;
    client.flushImpl = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      flushed = true;
    };
    await new AppInsightsMetrics(client).flush();
    expect(flushed).toBe(true);
  });

  it('flush reports a failing SDK flush instead of throwing', async () => {
    const client = new StubClient();
    client.flushImpl = () => Promise.reject(new Error('403 from ingestion'));
    const log = recordingLog();
    await expect(new AppInsightsMetrics(client, { log }).flush()).resolves.toBeUndefined();
    expect(log.lines).toEqual(['warn metrics not flushed: 403 from ingestion; up to 0 points tracked since the last completed flush are lost']);
  });

  it('flush gives up after the timeout (fake clock)', async () => {
    const client = new StubClient();
    client.flushImpl = () => new Promise<void>(() => {});
    const clock = new FakeClock();
    const log = recordingLog();
    let done = false;
    const metrics = new AppInsightsMetrics(client, { log, clock, flushTimeoutMs: 2_000 });
    metrics.track(METRIC_NAMES.changesDetected, 1);
    metrics.track(METRIC_NAMES.changesDetected, 2);
    const flushing = metrics.flush().then(() => (done = true));
    await clock.advance(1_999);
    expect(done).toBe(false);
    await clock.advance(1);
    await flushing;
    expect(log.lines).toEqual(['warn metrics not flushed: gave up after 2000 ms; up to 2 points tracked since the last completed flush are lost']);
  });

  it('counts the points a failed flush may lose from the last completed flush, and a timeout given to flush wins (fake clock)', async () => {
    const client = new StubClient();
    const clock = new FakeClock();
    const log = recordingLog();
    const metrics = new AppInsightsMetrics(client, { log, clock, flushTimeoutMs: 10_000 });
    metrics.track(METRIC_NAMES.changesDetected, 1);
    await metrics.flush();
    metrics.track(METRIC_NAMES.changesDetected, 2);
    metrics.track(METRIC_NAMES.changesDetected, 3);
    metrics.track(METRIC_NAMES.changesDetected, 4);
    client.flushImpl = () => new Promise<void>(() => {});
    const flushing = metrics.flush(500);
    await clock.advance(500);
    await flushing;
    expect(log.lines).toEqual(['warn metrics not flushed: gave up after 500 ms; up to 3 points tracked since the last completed flush are lost']);
  });
});
