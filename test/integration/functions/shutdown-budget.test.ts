import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeRuntime, createFunctionsRuntime, getRuntime, SHUTDOWN_BUDGET_MS, setRuntimeFactory } from '../../../functions/runtime-instance';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * The worker's shutdown ends within its budget when the telemetry exporter hangs. The Functions
 * host waits 5 s after WorkerTerminate before it kills the worker; the runtime (real: Azurite
 * tables, local bus) is closed with an Application Insights SDK stand-in whose flush and shutdown
 * never settle, as an exporter whose ingestion endpoint does not answer.
 */
const sdk = { metrics: 0, flushes: 0, shutdowns: 0 };
jest.mock('applicationinsights', () => {
  class TelemetryClient {
    trackMetric() {
      sdk.metrics++;
    }
    trackTrace() {}
    flush() {
      sdk.flushes++;
      return new Promise<void>(() => undefined);
    }
    shutdown() {
      sdk.shutdowns++;
      return new Promise<void>(() => undefined);
    }
  }
  return { TelemetryClient, KnownSeverityLevel: { Information: 'Information', Warning: 'Warning', Error: 'Error' } };
});

describe('the Functions worker shutdown with a hanging exporter', () => {
  let azurite: TestAzurite;
  let dir: string;
  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-fn-shutdown-'));
  });
  afterAll(async () => {
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`closes the runtime within ${SHUTDOWN_BUDGET_MS} ms and says on the console what is lost`, async () => {
    const warnings: string[] = [];
    const env = {
      AzureWebJobsStorage: azurite.connectionString,
      HIGHWATER_DATA_DIR: dir,
      APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://example.invalid/',
    };
    const spy = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.join(' ')));
    try {
      setRuntimeFactory(() => createFunctionsRuntime(env));
      const runtime = await getRuntime();
      runtime.metrics.track('MessagesProcessed', 3, { outcome: 'Success' });
      runtime.metrics.track('ProcessingDurationMs', 40);
      const started = Date.now();
      await closeRuntime();
      const took = Date.now() - started;
      // The budget, plus room for timers firing late on a loaded machine: still inside the host's
      // 5 s, where the close used to take up to 30 s.
      expect(took).toBeLessThanOrEqual(SHUTDOWN_BUDGET_MS + 750);
      // The runtime's own close reached the SDK too, and the telemetry waited for it as long as it could.
      expect(took).toBeGreaterThanOrEqual(SHUTDOWN_BUDGET_MS - 250);
    } finally {
      spy.mockRestore();
    }
    expect(sdk.metrics).toBe(2);
    expect(sdk.flushes).toBeGreaterThanOrEqual(1);
    expect(sdk.shutdowns).toBe(1);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[warn\] metrics not flushed: gave up after \d+ ms; up to 2 points tracked since the last completed flush are lost/),
        expect.stringMatching(/^\[warn\] Application Insights client not shut down: gave up after \d+ ms; traces and metrics it still held are lost/),
      ]),
    );
  }, 20_000);
});
