import type { Dimensions, MetricName, MetricPoint, Metrics, MetricsReader } from './metrics';

/**
 * Sends every point to several adapters, e.g. Application Insights and the local adapter that
 * feeds the status page. Reads come from the given reader.
 */
export class FanOutMetrics implements Metrics, MetricsReader {
  constructor(
    private readonly targets: readonly Metrics[],
    private readonly reader: MetricsReader,
  ) {}

  track(name: MetricName, value: number, dimensions?: Dimensions): void {
    for (const target of this.targets) target.track(name, value, dimensions);
  }

  async flush(): Promise<void> {
    await Promise.all(this.targets.map((t) => t.flush()));
  }

  pointsSince(since: Date, name?: MetricName): MetricPoint[] {
    return this.reader.pointsSince(since, name);
  }
}
