import { InMemoryMetrics } from '../../../../src/telemetry/metrics';
import { FakeClock } from '../../../support/fake-clock';
import type { MetricsHarness } from '../context';

/** `InMemoryMetrics`, read back from its points: one per value tracked. */
export function inMemoryHarness(): MetricsHarness {
  return {
    open: async () => {
      const clock = new FakeClock('2026-01-01T10:00:00Z');
      const metrics = new InMemoryMetrics(100_000, clock);
      return {
        metrics,
        destinations: [{
          name: 'in-memory points',
          aggregation: 'each',
          delivered: async () => metrics.points.map((p) => ({ name: p.name, value: p.value, count: p.count ?? 1, dimensions: p.dimensions })),
        }],
        now: () => clock.now(),
        advance: (ms) => clock.advance(ms),
        close: () => metrics.flush(),
        dispose: async () => undefined,
      };
    },
    close: async () => undefined,
  };
}
