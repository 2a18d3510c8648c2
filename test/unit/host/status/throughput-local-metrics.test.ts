import { throughputLastHour, outcomeTotals } from '../../../../src/host/status/throughput';
import type { Clock } from '../../../../src/platform/clock';
import { LocalMetrics } from '../../../../src/telemetry/local-metrics';
import { METRIC_NAMES, type ProcessOutcome } from '../../../../src/telemetry/metrics';

/**
 * The chart over the real local adapter, at a rate whose points (one a value) no longer fit the
 * 100,000 the adapter used to keep: rolled up per second, the hour is counted exactly.
 */
describe('throughput of the last hour from LocalMetrics', () => {
  it('counts every message and change of a busy hour, per minute and outcome', () => {
    let now = Date.parse('2026-06-01T10:00:00Z');
    const clock: Clock = { now: () => new Date(now), sleep: async () => undefined, every: () => () => undefined };
    const metrics = new LocalMetrics({ clock });
    const end = Date.parse('2026-06-01T11:00:30Z');
    const firstStart = Date.parse('2026-06-01T10:01:00Z');
    const outcomes: ProcessOutcome[] = ['Success', 'Success', 'Success', 'Failed', 'Ignored', 'Transitive'];
    const expected = Array.from({ length: 60 }, () => ({ Success: 0, Superseded: 0, Deferred: 0, Transitive: 0, Ignored: 0, Failed: 0 }));
    let detected = 0;
    for (let i = 0; now < end; i++, now = Date.parse('2026-06-01T10:00:00Z') + Math.floor((i * 1000) / 60)) {
      const outcome = outcomes[i % outcomes.length];
      metrics.track(METRIC_NAMES.messagesProcessed, 1, { job: `job-${i % 3}`, queue: 'sbqhigh', outcome });
      metrics.track(METRIC_NAMES.processingDurationMs, 2, { job: `job-${i % 3}`, queue: 'sbqhigh', outcome });
      if (i % 600 === 0) metrics.track(METRIC_NAMES.changesDetected, 5, { job: 'job-0' });
      if (now >= firstStart) {
        expected[Math.floor((now - firstStart) / 60_000)][outcome]++;
        if (i % 600 === 0) detected += 5;
      }
    }
    const result = throughputLastHour(metrics, { recentProcessed: [] }, clock.now());
    expect(result.source).toBe('metrics');
    expect(result.buckets.map((b) => b.counts)).toEqual(expected);
    expect(Object.values(outcomeTotals(result.buckets)).reduce((n, c) => n + c, 0)).toBe(3570 * 60); // 10:01:00 to 11:00:30, 60 a second
    expect(result.detected).toBe(detected);
    // One point a second per series (job and outcome go together here: 6 series), not one a message.
    expect(metrics.pointsSince(new Date(firstStart), METRIC_NAMES.messagesProcessed).length).toBe(3570 * 6);
  });
});
