import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../../src/model/clock';
import { LocalMetrics, metricsFileName, parseMetricLines, type MetricLine } from '../../../src/telemetry/local-metrics';
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

  it('writes each point as the JSON of its line, to the file of its day, whatever order the times come in', async () => {
    let now = 0;
    const clock: Clock = { now: () => new Date(now), sleep: async () => undefined, every: () => () => undefined };
    const metrics = new LocalMetrics({ clock, dir });
    const points: Array<[string, number, Record<string, string>]> = [
      ['2026-03-01T10:00:00.005Z', 1, { job: 'a', queue: 'q', outcome: 'Success' }],
      ['2026-03-01T10:00:00.050Z', 0.25, { job: 'a', queue: 'q', outcome: 'Success' }],
      ['2026-03-01T10:00:00.999Z', -3, { job: 'quote " and \\ and \u00e9 and \n', queue: 'q', outcome: 'Failed' }],
      ['2026-03-01T10:00:01.000Z', Number.NaN, {}],
      ['2026-02-28T23:59:59.999Z', 1e21, { job: 'b' }],
      ['2026-03-01T10:00:00.007Z', 7, { job: 'a' }],
      ['1969-12-31T23:59:59.123Z', 2, { job: 'before 1970' }],
      ['2026-03-02T00:00:00.000Z', 3, { job: 'c' }],
    ];
    for (const [at, value, dimensions] of points) {
      now = Date.parse(at);
      metrics.track(METRIC_NAMES.processingDurationMs, value, dimensions);
    }
    await metrics.close();
    const expected = new Map<string, string>();
    for (const [at, value, dimensions] of points) {
      const file = metricsFileName(new Date(at));
      const line: MetricLine = { at, name: METRIC_NAMES.processingDurationMs, value, dimensions };
      expected.set(file, `${expected.get(file) ?? ''}${JSON.stringify(line)}\n`);
    }
    expect([...expected.keys()].sort()).toEqual(['metrics-1969-12-31.jsonl', 'metrics-2026-02-28.jsonl', 'metrics-2026-03-01.jsonl', 'metrics-2026-03-02.jsonl']);
    for (const [file, text] of expected) expect(readFileSync(path.join(dir, file), 'utf8')).toBe(text);
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
