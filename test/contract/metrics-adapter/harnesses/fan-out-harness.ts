import { FanOutMetrics } from '../../../../src/telemetry/fan-out-metrics';
import { InMemoryMetrics } from '../../../../src/telemetry/metrics';
import type { MetricsHarness } from '../context';
import { openLocal } from './local-harness';

/**
 * `FanOutMetrics` over an `InMemoryMetrics` and a `LocalMetrics` writing its file, reading from
 * the local one, as the local host with Application Insights puts them together; each case's
 * expectations hold at both destinations.
 */
export function fanOutHarness(): MetricsHarness {
  return {
    open: async () => {
      const { opened, local, clock, file } = await openLocal();
      const memory = new InMemoryMetrics(100_000, clock);
      const metrics = new FanOutMetrics([memory, local], local);
      return {
        ...opened,
        metrics,
        destinations: [
          {
            name: 'in-memory points',
            aggregation: 'each',
            delivered: async () => memory.points.map((p) => ({ name: p.name, value: p.value, count: p.count ?? 1, dimensions: p.dimensions })),
          },
          file,
        ],
        // As createTelemetry closes: the local adapter, then a flush of all.
        close: async () => {
          await local.close();
          await metrics.flush();
        },
      };
    },
    close: async () => undefined,
  };
}
