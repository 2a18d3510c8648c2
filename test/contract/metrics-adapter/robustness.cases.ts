import { isMetricsReader, METRIC_NAMES } from '../../../src/telemetry/metrics';
import { type ContractContext, deliveredBy, expectedFor, PERIOD_MS, withMetrics } from './context';

/** `track` never throws (telemetry must not fail the work it observes), `flush` resolves when done or given up, readers read back by time. */
export function robustnessCases(ctx: ContractContext): void {
  ctx.caseIt([])('never throws on values that are no number to send, and delivers a value without dimensions with none', async () => {
    await withMetrics(ctx, async (m) => {
      for (const odd of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        expect(() => m.metrics.track(METRIC_NAMES.watermarkLagSeconds, odd, { job: 'odd' })).not.toThrow();
      }
      m.metrics.track(METRIC_NAMES.changesDetected, 1);
      await m.advance(PERIOD_MS);
      await expect(m.metrics.flush()).resolves.toBeUndefined();
      const delivered = await deliveredBy(m);
      expect(delivered.map((d) => ({ destination: d.destination, points: d.points.filter((p) => p.name === 'ChangesDetected') }))).toEqual(
        m.destinations.map((d) => ({ destination: d.name, points: expectedFor(d, 'ChangesDetected', {}, [1]) })),
      );
    });
  });

  ctx.caseIt(['failure'])('keeps tracking when its destination fails: track never throws, flush and close resolve', async () => {
    await withMetrics(ctx, async (m) => {
      if (!m.breakDestinations) throw new Error('the harness must say how its destination fails (breakDestinations)');
      await m.breakDestinations();
      expect(() => m.metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'a' })).not.toThrow();
      await m.advance(PERIOD_MS);
      await expect(m.metrics.flush()).resolves.toBeUndefined();
      expect(() => m.metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'a' })).not.toThrow();
      await expect(m.close()).resolves.toBeUndefined();
    });
  });

  ctx.caseIt(['reader'])('reads back the points at or after a time, oldest first, of one metric when named', async () => {
    await withMetrics(ctx, async (m) => {
      const { metrics } = m;
      if (!isMetricsReader(metrics)) throw new Error('a reader adapter must implement pointsSince');
      expect(metrics.pointsSince(new Date(0))).toEqual([]);
      metrics.track(METRIC_NAMES.changesDetected, 1, { job: 'early' });
      await m.advance(PERIOD_MS);
      const since = m.now();
      metrics.track(METRIC_NAMES.changesDetected, 2, { job: 'late' });
      metrics.track(METRIC_NAMES.queueDepth, 3, { queue: 'sbqhigh', role: 'work', state: 'active' });
      const shown = (points: ReturnType<typeof metrics.pointsSince>) => points.map((p) => [p.name, p.value, p.dimensions]);
      expect(shown(metrics.pointsSince(new Date(0)))).toEqual([
        ['ChangesDetected', 1, { job: 'early' }], ['ChangesDetected', 2, { job: 'late' }], ['QueueDepth', 3, { queue: 'sbqhigh', role: 'work', state: 'active' }],
      ]);
      expect(shown(metrics.pointsSince(since))).toEqual([['ChangesDetected', 2, { job: 'late' }], ['QueueDepth', 3, { queue: 'sbqhigh', role: 'work', state: 'active' }]]);
      expect(shown(metrics.pointsSince(since, METRIC_NAMES.queueDepth))).toEqual([['QueueDepth', 3, { queue: 'sbqhigh', role: 'work', state: 'active' }]]);
      expect(metrics.pointsSince(new Date(since.getTime() + 60_000))).toEqual([]);
    });
  });
}

