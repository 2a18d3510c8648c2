import { InMemoryMetrics, METRIC_NAMES } from '../../../src/telemetry/metrics';

describe('InMemoryMetrics', () => {
  it('keeps the newest maxPoints, trimming in chunks of a quarter', () => {
    const metrics = new InMemoryMetrics(8, { now: () => new Date(0) });
    for (let i = 1; i <= 10; i++) metrics.track(METRIC_NAMES.changesDetected, i);
    expect(metrics.points.map((p) => p.value)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    metrics.track(METRIC_NAMES.changesDetected, 11);
    expect(metrics.points.map((p) => p.value)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('stays cheap once full: 300,000 points into a store of 100,000 in well under a second', () => {
    // Trimming one point per call moved the whole array each time (about 5 s here, and half of
    // the local host's processing time once 50,000 messages were processed).
    const metrics = new InMemoryMetrics(100_000, { now: () => new Date(0) });
    const started = Date.now();
    for (let i = 0; i < 300_000; i++) metrics.track(METRIC_NAMES.changesDetected, i, { job: 'j' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(metrics.points.length).toBeLessThanOrEqual(125_000);
    expect(metrics.points[metrics.points.length - 1].value).toBe(299_999);
  });
});
