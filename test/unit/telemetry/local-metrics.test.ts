import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../../src/platform/clock';
import { LocalMetrics, metricsFileName, parseMetricLines, type MetricLine } from '../../../src/telemetry/local-metrics';
import { METRIC_NAMES, type Dimensions, type MetricName } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { recordingLog } from './telemetry-stubs';

/** A clock set by hand, back as well as forward; its timer never fires. */
function settableClock(start: string): Clock & { set(iso: string): void } {
  let now = Date.parse(start);
  return { now: () => new Date(now), sleep: async () => undefined, every: () => () => undefined, set: (iso) => (now = Date.parse(iso)) };
}

const line = (at: string, value: number, count: number, min: number, max: number, dimensions: Dimensions, name: MetricName = METRIC_NAMES.processingDurationMs): MetricLine => ({
  at,
  name,
  value,
  count,
  min,
  max,
  dimensions,
});

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

  it('rolls values up per UTC second, name and dimensions (in any order): sum, count, min, max', () => {
    const clock = settableClock('2026-01-01T10:00:00.100Z');
    const metrics = new LocalMetrics({ clock });
    const processed = { job: 'a', queue: 'sbqhigh', outcome: 'Success' };
    metrics.track(METRIC_NAMES.processingDurationMs, 5, processed);
    clock.set('2026-01-01T10:00:00.900Z');
    metrics.track(METRIC_NAMES.processingDurationMs, 2, { outcome: 'Success', queue: 'sbqhigh', job: 'a' });
    metrics.track(METRIC_NAMES.processingDurationMs, 9, { ...processed, outcome: 'Failed' });
    metrics.track(METRIC_NAMES.messagesProcessed, 1, processed);
    clock.set('2026-01-01T10:00:01.000Z');
    metrics.track(METRIC_NAMES.processingDurationMs, 4, processed);
    const at = (iso: string) => new Date(iso);
    expect(metrics.pointsSince(new Date(0))).toEqual([
      { at: at('2026-01-01T10:00:00Z'), name: 'ProcessingDurationMs', value: 7, count: 2, min: 2, max: 5, dimensions: processed },
      { at: at('2026-01-01T10:00:00Z'), name: 'ProcessingDurationMs', value: 9, count: 1, min: 9, max: 9, dimensions: { ...processed, outcome: 'Failed' } },
      { at: at('2026-01-01T10:00:00Z'), name: 'MessagesProcessed', value: 1, count: 1, min: 1, max: 1, dimensions: processed },
      { at: at('2026-01-01T10:00:01Z'), name: 'ProcessingDurationMs', value: 4, count: 1, min: 4, max: 4, dimensions: processed },
    ]);
    expect(metrics.pointsSince(new Date('2026-01-01T10:00:00.001Z')).map((p) => p.value)).toEqual([4]);
    expect(metrics.sum(METRIC_NAMES.processingDurationMs, { outcome: 'Success' })).toBe(11);
  });

  it('what pointsSince returns is a copy: changing it changes nothing kept', () => {
    const metrics = new LocalMetrics({ clock: new FakeClock() });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    const [read] = metrics.pointsSince(new Date(0));
    read.value = 100;
    read.dimensions.job = 'b';
    read.at.setTime(0);
    expect(metrics.pointsSince(new Date(0))).toEqual([expect.objectContaining({ value: 1, dimensions: { job: 'a' }, at: new Date('2026-01-01T00:00:00Z') })]);
  });

  it('keeps the last 65 minutes by default, whatever the number of values tracked', () => {
    const clock = settableClock('2026-01-01T10:00:00Z');
    const metrics = new LocalMetrics({ clock });
    for (let i = 0; i < 150_000; i++) metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'q', outcome: 'Success' });
    clock.set('2026-01-01T11:05:00Z');
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    expect(metrics.sum(METRIC_NAMES.messagesProcessed)).toBe(150_000);
    clock.set('2026-01-01T11:05:01Z');
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    expect(metrics.sum(METRIC_NAMES.messagesProcessed)).toBe(0);
    expect(metrics.pointsSince(new Date(0)).map((p) => p.at.toISOString())).toEqual(['2026-01-01T11:05:00.000Z', '2026-01-01T11:05:01.000Z']);
  });

  it('maxPoints caps memory by dropping the oldest seconds, and the file still gets every line', async () => {
    const clock = settableClock('2026-01-01T10:00:00Z');
    const metrics = new LocalMetrics({ clock, dir, maxPoints: 3 });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'b' });
    clock.set('2026-01-01T10:00:01Z');
    metrics.track(METRIC_NAMES.changesDetected, 3, { job: 'a' });
    expect(metrics.pointsSince(new Date(0)).map((p) => p.value)).toEqual([1, 2, 3]);
    metrics.track(METRIC_NAMES.changesDetected, 4, { job: 'b' });
    expect(metrics.pointsSince(new Date(0)).map((p) => p.value)).toEqual([3, 4]);
    await metrics.close();
    const lines = parseMetricLines(readFileSync(path.join(dir, 'metrics-2026-01-01.jsonl'), 'utf8'));
    expect(lines.map((l) => l.value)).toEqual([1, 2, 3, 4]);
  });

  it('appends JSON lines, one file per UTC day: a flush writes the seconds that are over, close the rest', async () => {
    const clock = new FakeClock('2026-01-01T23:59:59Z');
    const metrics = new LocalMetrics({ clock, dir });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    await metrics.flush();
    const day1File = path.join(dir, 'metrics-2026-01-01.jsonl');
    expect(() => readFileSync(day1File)).toThrow(/ENOENT/);
    await clock.advance(999);
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    await clock.advance(1);
    metrics.track(METRIC_NAMES.changesDetected, 3, { job: 'a' });
    await metrics.flush();
    const day2File = path.join(dir, 'metrics-2026-01-02.jsonl');
    expect(() => readFileSync(day2File)).toThrow(/ENOENT/);
    expect(readFileSync(day1File, 'utf8')).toBe(
      '{"at":"2026-01-01T23:59:59.000Z","name":"ChangesDetected","value":3,"count":2,"min":1,"max":2,"dimensions":{"job":"a"}}\n',
    );
    await metrics.close();
    expect(parseMetricLines(readFileSync(day2File, 'utf8'))).toEqual([line('2026-01-02T00:00:00.000Z', 3, 1, 3, 3, { job: 'a' }, METRIC_NAMES.changesDetected)]);
  });

  it('writes each point as the JSON of its line, to the file of its day, in time order whatever order the times come in', async () => {
    const clock = settableClock('2026-03-01T10:00:00Z');
    const metrics = new LocalMetrics({ clock, dir });
    const success = { job: 'a', queue: 'q', outcome: 'Success' };
    const odd = { job: 'quote " and \\ and \u00e9 and \n', queue: 'q', outcome: 'Failed' };
    const points: Array<[string, number, Dimensions]> = [
      ['2026-03-01T10:00:00.005Z', 1, success],
      ['2026-03-01T10:00:00.050Z', 0.25, success],
      ['2026-03-01T10:00:00.999Z', -3, odd],
      ['2026-03-01T10:00:01.000Z', Number.NaN, {}],
      ['2026-02-28T23:59:59.999Z', 1e21, { job: 'b' }],
      ['2026-03-01T10:00:00.007Z', 7, { job: 'a' }],
      ['2026-03-01T10:00:00.500Z', 2, { outcome: 'Success', job: 'a', queue: 'q' }],
      ['1969-12-31T23:59:59.123Z', 2, { job: 'before 1970' }],
      ['2026-03-02T00:00:00.000Z', 3, { job: 'c' }],
      ['2026-03-01T09:59:59.000Z', 4, { job: 'a' }],
    ];
    for (const [at, value, dimensions] of points) {
      clock.set(at);
      metrics.track(METRIC_NAMES.processingDurationMs, value, dimensions);
    }
    await metrics.close();
    const expected: Record<string, MetricLine[]> = {
      'metrics-1969-12-31.jsonl': [line('1969-12-31T23:59:59.000Z', 2, 1, 2, 2, { job: 'before 1970' })],
      'metrics-2026-02-28.jsonl': [line('2026-02-28T23:59:59.000Z', 1e21, 1, 1e21, 1e21, { job: 'b' })],
      'metrics-2026-03-01.jsonl': [
        line('2026-03-01T09:59:59.000Z', 4, 1, 4, 4, { job: 'a' }),
        line('2026-03-01T10:00:00.000Z', 3.25, 3, 0.25, 2, success),
        line('2026-03-01T10:00:00.000Z', -3, 1, -3, -3, odd),
        line('2026-03-01T10:00:00.000Z', 7, 1, 7, 7, { job: 'a' }),
        line('2026-03-01T10:00:01.000Z', Number.NaN, 1, Number.NaN, Number.NaN, {}),
      ],
      'metrics-2026-03-02.jsonl': [line('2026-03-02T00:00:00.000Z', 3, 1, 3, 3, { job: 'c' })],
    };
    for (const [file, lines] of Object.entries(expected)) {
      expect([file, readFileSync(path.join(dir, file), 'utf8')]).toEqual([file, lines.map((l) => JSON.stringify(l) + '\n').join('')]);
    }
    expect(metricsFileName(new Date('2026-03-01T23:59:59.999Z'))).toBe('metrics-2026-03-01.jsonl');
  });

  it('a value tracked for a second already written (clock set back) goes in the next write as another line', async () => {
    const clock = settableClock('2026-01-01T10:00:00.200Z');
    const metrics = new LocalMetrics({ clock, dir });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    clock.set('2026-01-01T10:00:01Z');
    await metrics.flush();
    clock.set('2026-01-01T10:00:00.700Z');
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    await metrics.flush(); // its second is not over by this clock
    clock.set('2026-01-01T10:00:01Z');
    await metrics.flush();
    const lines = parseMetricLines(readFileSync(path.join(dir, 'metrics-2026-01-01.jsonl'), 'utf8'));
    expect(lines.map((l) => [l.at, l.value, l.count])).toEqual([
      ['2026-01-01T10:00:00.000Z', 1, 1],
      ['2026-01-01T10:00:00.000Z', 2, 1],
    ]);
    expect(metrics.pointsSince(new Date(0)).map((p) => [p.value, p.count])).toEqual([[3, 2]]);
    await metrics.close();
  });

  it('flushes the seconds that are over on its own every flushIntervalMs', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const metrics = new LocalMetrics({ clock, dir, flushIntervalMs: 5_000 });
    metrics.track(METRIC_NAMES.watermarkLagSeconds, 12, { job: 'a' });
    const file = path.join(dir, metricsFileName(clock.now()));
    await clock.advance(4_999);
    metrics.track(METRIC_NAMES.watermarkLagSeconds, 13, { job: 'a' });
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    await clock.advance(1);
    await metrics.flush(); // waits for the timer's write
    expect(parseMetricLines(readFileSync(file, 'utf8')).map((l) => l.value)).toEqual([12, 13]);
    await metrics.close();
    expect(clock.pending).toBe(0);
  });

  it('a failing write is reported once and never thrown', async () => {
    const blocker = path.join(dir, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const log = recordingLog();
    const clock = new FakeClock();
    const metrics = new LocalMetrics({ clock, dir: blocker, log });
    metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    await clock.advance(1_000);
    await expect(metrics.flush()).resolves.toBeUndefined();
    expect(log.lines).toHaveLength(1);
    metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' });
    await metrics.close();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(new RegExp(`^warn metrics not written to ${blocker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: EEXIST`));
    expect(metrics.sum(METRIC_NAMES.changesDetected)).toBe(3);
  });

  it('parseMetricLines skips a line cut off by a crash, and reads a line without count as one value', () => {
    const text = [
      '{"at":"2026-01-01T00:00:00.000Z","name":"ChangesDetected","value":1,"dimensions":{"job":"a"}}',
      '{"at":"2026-01-01T00:00:01.000Z","name":"ChangesDetected","value":5,"count":2,"min":2,"max":3,"dimensions":{"job":"a"}}',
      '{"at":"2026-01-01T00:0',
    ].join('\n');
    expect(parseMetricLines(text)).toEqual([
      { at: '2026-01-01T00:00:00.000Z', name: 'ChangesDetected', value: 1, count: 1, dimensions: { job: 'a' } },
      { at: '2026-01-01T00:00:01.000Z', name: 'ChangesDetected', value: 5, count: 2, min: 2, max: 3, dimensions: { job: 'a' } },
    ]);
  });
});
