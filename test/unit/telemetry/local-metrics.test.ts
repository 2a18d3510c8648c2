import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalMetrics, metricsFileName, parseMetricLines } from '../../../src/telemetry/local-metrics';
import { METRIC_NAMES } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { recordingLog } from './telemetry-stubs';

describe('LocalMetrics', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-local-metrics-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps points in memory and reads them back by time and name', async () => {
    const clock = new FakeClock('2026-01-01T10:00:00Z');
    const metrics = new LocalMetrics({ clock });
    metrics.track(METRIC_NAMES.changesDetected, 3, { job: 'a' });
    await clock.advance(60_000);
    metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: 'Success' });
    metrics.track(METRIC_NAMES.changesDetected, 4, { job: 'b' });
    expect(metrics.pointsSince(new Date('2026-01-01T10:01:00Z')).map((p) => p.value)).toEqual([1, 4]);
    expect(metrics.pointsSince(new Date(0), METRIC_NAMES.changesDetected).map((p) => p.dimensions.job)).toEqual(['a', 'b']);
    expect(metrics.sum(METRIC_NAMES.changesDetected)).toBe(7);
    await metrics.close();
  });

  it('appends JSON lines, one file per UTC day, in tracking order', async () => {
    const clock = new FakeClock('2026-01-01T23:59:59Z');
    const metrics = new LocalMetrics({ clock, dir });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    await metrics.flush();
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    await clock.advance(1_000);
    metrics.track(METRIC_NAMES.changesDetected, 3, { job: 'a' });
    await metrics.close();
    const day1 = parseMetricLines(readFileSync(path.join(dir, 'metrics-2026-01-01.jsonl'), 'utf8'));
    const day2 = parseMetricLines(readFileSync(path.join(dir, 'metrics-2026-01-02.jsonl'), 'utf8'));
    expect(day1.map((l) => [l.at, l.value])).toEqual([
      ['2026-01-01T23:59:59.000Z', 1],
      ['2026-01-01T23:59:59.000Z', 2],
    ]);
    expect(day2).toEqual([{ at: '2026-01-02T00:00:00.000Z', name: 'ChangesDetected', value: 3, dimensions: { job: 'a' } }]);
  });

  it('flushes on its own every flushIntervalMs', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const metrics = new LocalMetrics({ clock, dir, flushIntervalMs: 5_000 });
    metrics.track(METRIC_NAMES.watermarkLagSeconds, 12, { job: 'a' });
    const file = path.join(dir, metricsFileName(clock.now()));
    await clock.advance(4_999);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    await clock.advance(1);
    await metrics.flush(); // waits for the timer's write
    expect(parseMetricLines(readFileSync(file, 'utf8')).map((l) => l.value)).toEqual([12]);
    await metrics.close();
    expect(clock.pending).toBe(0);
  });

  it('a failing write is reported once and never thrown', async () => {
    const blocker = path.join(dir, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const log = recordingLog();
    const metrics = new LocalMetrics({ clock: new FakeClock(), dir: blocker, log });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    await expect(metrics.flush()).resolves.toBeUndefined();
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    await metrics.close();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(new RegExp(`^warn metrics not written to ${blocker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: EEXIST`));
    expect(metrics.sum(METRIC_NAMES.changesDetected)).toBe(3);
  });

  it('parseMetricLines skips a line cut off by a crash', () => {
    const text = '{"at":"2026-01-01T00:00:00.000Z","name":"ChangesDetected","value":1,"dimensions":{"job":"a"}}\n{"at":"2026-01-01T00:0';
    expect(parseMetricLines(text)).toHaveLength(1);
  });
});
