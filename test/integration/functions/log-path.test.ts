import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFunctionsRuntime } from '../../../functions/runtime-instance';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * One log path in Azure: with Application Insights on, the Functions runtime's log lines become
 * SDK traces and nothing is written to the console (which the Node worker would forward to
 * Application Insights as a second copy). The SDK is replaced by a recording stand-in.
 */
const sdk = { traces: [] as Array<{ message: string; severity: unknown; properties: Record<string, string> }> };
jest.mock('applicationinsights', () => {
  class TelemetryClient {
    trackMetric() {}
    trackTrace(t: { message: string; severity: unknown; properties: Record<string, string> }) {
      sdk.traces.push(t);
    }
    async flush() {}
    async shutdown() {}
  }
  return { TelemetryClient, KnownSeverityLevel: { Information: 'Information', Warning: 'Warning', Error: 'Error' } };
});

describe('the Functions runtime with Application Insights', () => {
  let azurite: TestAzurite;
  let dir: string;
  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-fn-logpath-'));
  });
  afterAll(async () => {
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends each log line once, as a trace with its context, and writes none to the console', async () => {
    const runtime = await createFunctionsRuntime({
      AzureWebJobsStorage: azurite.connectionString,
      HIGHWATER_DATA_DIR: dir,
      APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://example.invalid/',
    });
    const written: string[] = [];
    const spies = (['log', 'info', 'warn', 'error'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => void written.push(args.join(' '))),
    );
    try {
      runtime.log.warn('message m-1 failed', { correlationId: 'c-1' });
      runtime.log.info('job crm-accounts: Succeeded');
    } finally {
      spies.forEach((spy) => spy.mockRestore());
      await runtime.close();
    }
    expect(sdk.traces.filter((t) => t.message.startsWith('message m-1') || t.message.startsWith('job crm-accounts'))).toEqual([
      { message: 'message m-1 failed', severity: 'Warning', properties: { correlationId: 'c-1' } },
      { message: 'job crm-accounts: Succeeded', severity: 'Information', properties: {} },
    ]);
    expect(written).toEqual([]);
  });
});
