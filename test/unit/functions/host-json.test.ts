import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LOCK_RENEWAL_MARGIN_MS } from '../../../functions/support/queue-trigger';
import { deliveryBackoffMs } from '../../../src/process/backoff';
import { DEFAULT_LOCK_RENEWAL_MS } from '../../../src/process/process-queue-message-service';
import { isoDurationMs, objectEntries, resourceBodies, stringLiteral } from '../infra/bicep-text';
import { bicepSource } from '../infra/infra-files';

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

  const serviceBus = host.extensions.serviceBus;
  /** The work queues' lock duration, from infra/modules/service-bus.bicep. */
  const lockDurationMs = (() => {
    const [queue] = resourceBodies(bicepSource('infra/modules/service-bus.bicep'), 'Microsoft.ServiceBus/namespaces/queues');
    return isoDurationMs(stringLiteral(objectEntries(objectEntries(queue).get('properties') ?? '{}').get('lockDuration') ?? '') ?? '');
  })();

  it('leaves settlement and lock renewal to the trigger: nothing auto-completed, no host renewal, no prefetched locks', () => {
    expect(serviceBus).toMatchObject({ autoCompleteMessages: false, maxAutoLockRenewalDuration: '00:00:00', prefetchCount: 0 });
    // The trigger renews every 30 s, and at once when a lock ends within the margin.
    expect(lockDurationMs).toBe(60_000);
    expect(DEFAULT_LOCK_RENEWAL_MS).toBeLessThanOrEqual(lockDurationMs / 2);
    expect(LOCK_RENEWAL_MARGIN_MS).toBeLessThan(lockDurationMs - DEFAULT_LOCK_RENEWAL_MS);
  });

  it('sizes the batches within what the Service Bus extension accepts (ServiceBusHostBuilderExtensions)', () => {
    expect(serviceBus).toMatchObject({ maxMessageBatchSize: 256, minMessageBatchSize: 32, maxBatchWaitTime: '00:00:02' });
    expect(serviceBus.minMessageBatchSize).toBeLessThanOrEqual(serviceBus.maxMessageBatchSize);
    // At most half the lock (and the extension's own cap of 2:30), so a message waiting in the
    // listener's cache for a batch to fill keeps most of its lock.
    expect(timeSpanMs(serviceBus.maxBatchWaitTime)).toBeLessThanOrEqual(Math.min(lockDurationMs / 2, 150_000));
    // Settings that do not apply to batch functions are not set (they would only mislead).
    expect(Object.keys(serviceBus)).not.toContain('maxConcurrentCalls');
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
