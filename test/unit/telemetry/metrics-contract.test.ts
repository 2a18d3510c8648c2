import { runMetricsAdapterContract } from '../../contract/metrics-adapter.contract';
import { fanOutHarness } from '../../contract/metrics-adapter/harnesses/fan-out-harness';
import { inMemoryHarness } from '../../contract/metrics-adapter/harnesses/in-memory-harness';
import { localMetricsHarness } from '../../contract/metrics-adapter/harnesses/local-harness';

/**
 * The metrics adapter contract on the adapters that run in this process: in memory, the local
 * JSON-lines file (read back from the file), and the fan-out of both. Application Insights runs
 * against an ingestion endpoint stand-in in `test/integration/telemetry/metrics-contract-app-insights.test.ts`.
 */
runMetricsAdapterContract('InMemoryMetrics', async () => inMemoryHarness(), {
  unsupported: { failure: 'keeps points in memory: there is no destination that could fail' },
});

runMetricsAdapterContract('LocalMetrics (JSON-lines file)', async () => localMetricsHarness());

runMetricsAdapterContract('FanOutMetrics (in memory + LocalMetrics file)', async () => fanOutHarness());
