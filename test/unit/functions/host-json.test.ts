import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deliveryBackoffMs } from '../../../src/process/backoff';
import { DEFAULT_LOCK_RENEWAL_MS } from '../../../src/process/process-queue-message-service';

const host = JSON.parse(readFileSync(path.join(__dirname, '../../../host.json'), 'utf8'));

/** `hh:mm:ss` → ms. */
function timeSpanMs(value: string): number {
  const [h, m, s] = value.split(':').map(Number);
  return ((h * 60 + m) * 60 + s) * 1000;
}

/** host.json agrees with what the code does (see the settings notes in the report / README). */
describe('host.json', () => {
  it('uses extension bundle 4.x (Service Bus SDK binding, Durable Functions)', () => {
    expect(host.extensionBundle).toEqual({ id: 'Microsoft.Azure.Functions.ExtensionBundle', version: '[4.*, 5.0.0)' });
  });

  it('leaves settlement and lock renewal to the processor', () => {
    expect(host.extensions.serviceBus).toMatchObject({ autoCompleteMessages: false, maxAutoLockRenewalDuration: '00:00:00', prefetchCount: 0 });
    // The processor renews every 30 s; the queues' lock lasts 60 s (infra/modules/service-bus.bicep).
    expect(DEFAULT_LOCK_RENEWAL_MS).toBeLessThan(60_000);
  });

  it('gives a message on its last delivery time to wait out its backoff and be processed', () => {
    const maxDeliveryCount = 10;
    expect(timeSpanMs(host.functionTimeout)).toBeGreaterThan(deliveryBackoffMs(maxDeliveryCount) + 5 * 60_000);
  });

  it('names the durable task hub and never samples requests, exceptions or events away', () => {
    expect(host.extensions.durableTask.hubName).toBe('DurableFunctionsHub');
    expect(host.logging.applicationInsights.samplingSettings.excludedTypes.split(';')).toEqual(expect.arrayContaining(['Request', 'Exception', 'Event']));
  });
});
