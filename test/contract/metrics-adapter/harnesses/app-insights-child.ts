import { AppInsightsMetrics, type AppInsightsClient, loadAppInsightsClient } from '../../../../src/telemetry/app-insights-metrics';
import type { Dimensions, MetricName } from '../../../../src/telemetry/metrics';

/**
 * The Application Insights adapter with the real SDK, in a process of its own: the SDK sends
 * only over HTTPS, and only a process started with `NODE_EXTRA_CA_CERTS` trusts the ingestion
 * stand-in's certificate. The parent (`app-insights-harness.ts`) sends requests over IPC.
 */
export type ChildRequest =
  | { op: 'open'; seq: number; adapter: number; connectionString: string }
  | { op: 'track'; adapter: number; name: MetricName; value: number; dimensions?: Dimensions }
  | { op: 'flush' | 'close'; seq: number; adapter: number }
  | { op: 'exit' };

export type ChildReply = { seq: number; error?: string } | { warning: string } | { trackError: string };

const adapters = new Map<number, { client: AppInsightsClient; metrics: AppInsightsMetrics }>();
const reply = (message: ChildReply) => process.send?.(message);

async function handle(request: ChildRequest): Promise<void> {
  switch (request.op) {
    case 'open': {
      const client = await loadAppInsightsClient(request.connectionString);
      adapters.set(request.adapter, { client, metrics: new AppInsightsMetrics(client, { log: { info: () => undefined, warn: (warning) => reply({ warning }), error: (warning) => reply({ warning }) } }) });
      return;
    }
    case 'track':
      try {
        adapters.get(request.adapter)?.metrics.track(request.name, request.value, request.dimensions);
      } catch (err) {
        // The port: track never throws. The parent fails the case on this.
        reply({ trackError: err instanceof Error ? err.message : String(err) });
      }
      return;
    case 'flush':
      await adapters.get(request.adapter)?.metrics.flush();
      return;
    case 'close': {
      // As createTelemetry closes: a flush, then the client's shutdown.
      const adapter = adapters.get(request.adapter);
      adapters.delete(request.adapter);
      await adapter?.metrics.flush();
      await adapter?.client.shutdown();
      return;
    }
    case 'exit':
      process.exit(0);
  }
}

// Requests are handled one after another, in the order sent (a track before a flush is in it).
let queue = Promise.resolve();
process.on('message', (request: ChildRequest) => {
  queue = queue.then(async () => {
    try {
      await handle(request);
      if ('seq' in request) reply({ seq: request.seq });
    } catch (err) {
      if ('seq' in request) reply({ seq: request.seq, error: err instanceof Error ? err.message : String(err) });
    }
  });
});
reply({ seq: 0 });
