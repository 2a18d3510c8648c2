import { capabilityIt } from './capability-it';
import type { Capability, ContractContext, MetricsHarness, OpenedMetrics } from './metrics-adapter/context';
import { deliveryCases } from './metrics-adapter/delivery.cases';
import { robustnessCases } from './metrics-adapter/robustness.cases';

export type { MetricsHarness } from './metrics-adapter/context';

export interface MetricsContractOptions {
  /**
   * What the adapter cannot do, with the reason: the cases that need it are skipped and the
   * reason is printed (e.g. `{ reader: 'write-only: not a MetricsReader' }`). Default: none.
   */
  unsupported?: Partial<Record<Capability, string>>;
  /** Per-case timeout in ms. Default: jest's. */
  timeoutMs?: number;
}

/**
 * The metrics port's contract (`src/telemetry/metrics.ts`): a value tracked with dimensions
 * reaches every destination with them, values of one series aggregate as the adapter documents
 * (one point each, or rolled up per period: sum, count, min, max), `flush` delivers what was
 * tracked before it and nothing twice, a host's close delivers the rest, `track` never throws
 * and `flush` resolves also when the destination fails, and readers read back by time and name.
 * `makeHarness` runs once per suite; each case opens a fresh adapter.
 *
 * The port promises no scrubbing of dimension values (the emitters pass the fixed dimensions of
 * `METRIC_DIMENSIONS`), so no case looks for secrets in them.
 *
 * @example
 *   runMetricsAdapterContract('LocalMetrics', async () => localMetricsHarness(), { unsupported: {} });
 */
export function runMetricsAdapterContract(name: string, makeHarness: () => Promise<MetricsHarness>, options: MetricsContractOptions = {}): void {
  let harness: MetricsHarness | undefined;
  const unsupported = options.unsupported ?? {};
  const ctx: ContractContext = {
    caseIt: capabilityIt(`Metrics contract ${name}`, unsupported, options.timeoutMs),
    open: (): Promise<OpenedMetrics> => {
      if (!harness) throw new Error(`${name}: the contract harness is not ready (did beforeAll fail?)`);
      return harness.open();
    },
  };

  describe(`Metrics adapter contract: ${name}`, () => {
    beforeAll(async () => {
      harness = await makeHarness();
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    describe('delivery: values, dimensions, aggregation, flush and close', () => deliveryCases(ctx));
    describe('robustness and reading back', () => robustnessCases(ctx));
  });
}
