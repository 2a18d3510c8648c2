import { runMetricsAdapterContract } from '../../contract/metrics-adapter.contract';
import { appInsightsHarness } from '../../contract/metrics-adapter/harnesses/app-insights-harness';

/**
 * The metrics adapter contract on Application Insights: the real SDK and its exporter, sending
 * over HTTPS to an ingestion endpoint stand-in (a server started once for the suite).
 */
runMetricsAdapterContract('AppInsightsMetrics (real SDK, ingestion endpoint stand-in)', appInsightsHarness, {
  unsupported: { reader: 'AppInsightsMetrics only sends: it is no MetricsReader' },
  timeoutMs: 20_000,
});
