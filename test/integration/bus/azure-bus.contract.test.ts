import { ServiceBusAdministrationClient, type CreateQueueOptions } from '@azure/service-bus';
import { AzureServiceBus } from '../../../src/bus/azure/azure-bus';
import { runMessageBusContract, type ContractQueueOptions } from '../../contract/message-bus.contract';

/**
 * The MessageBus contract against a real Service Bus namespace, when
 * `SERVICEBUS_CONNECTION_STRING` is set. Each case gets a fresh queue, created here through the
 * administration API (the connection string needs the Manage claim, e.g.
 * RootManageSharedAccessKey) and deleted afterwards: `hw-contract-<run>-<n>-<case>`, lock
 * 1 minute, max delivery 10, TTL 14 days, duplicate detection on (10 minutes), unless the case
 * asks otherwise. Time-dependent cases wait in real time (about two minutes in all).
 *
 * The official emulator (`UseDevelopmentEmulator=true`) cannot create queues through this SDK
 * (no administration endpoint in 7.9): the suite then stops at its first case with that message.
 */
const connectionString = process.env.SERVICEBUS_CONNECTION_STRING?.trim();

const minutes = (n: number) => n * 60_000;

/** Service Bus takes durations as ISO 8601 (`PT5S`). */
function isoDuration(ms: number): string {
  return `PT${ms / 1000}S`;
}

function queueOptions(options: ContractQueueOptions = {}): CreateQueueOptions {
  return {
    lockDuration: isoDuration(options.lockDurationMs ?? minutes(1)),
    maxDeliveryCount: options.maxDeliveryCount ?? 10,
    defaultMessageTimeToLive: isoDuration(options.defaultTimeToLiveMs ?? minutes(14 * 24 * 60)),
    requiresDuplicateDetection: true,
    duplicateDetectionHistoryTimeWindow: isoDuration(options.duplicateDetectionWindowMs ?? minutes(10)),
    // As the local bus does, and as the contract's TTL case expects.
    deadLetteringOnMessageExpiration: true,
  };
}

if (!connectionString) {
  console.log('SERVICEBUS_CONNECTION_STRING not set: Azure Service Bus contract suite skipped');
  describe.skip('MessageBus contract: AzureServiceBus (needs SERVICEBUS_CONNECTION_STRING)', () => {
    it('runs against a Service Bus namespace', () => undefined);
  });
} else {
  const emulator = /UseDevelopmentEmulator\s*=\s*true/i.test(connectionString);
  runMessageBusContract(
    'AzureServiceBus',
    async () => {
      const admin = new ServiceBusAdministrationClient(connectionString);
      const bus = new AzureServiceBus({ connectionString });
      const run = Date.now().toString(36);
      const created: string[] = [];
      return {
        bus,
        realTime: true,
        queue: async (suffix, options) => {
          if (emulator) {
            throw new Error('the emulator has no administration endpoint in @azure/service-bus 7.9: the contract needs fresh queues, run it against a namespace');
          }
          const name = `hw-contract-${run}-${created.length + 1}-${suffix}`;
          await admin.createQueue(name, queueOptions(options));
          created.push(name);
          return name;
        },
        cleanup: async () => {
          try {
            await bus.close();
          } finally {
            await Promise.allSettled(created.map((name) => admin.deleteQueue(name)));
          }
        },
      };
    },
    { time: 'real' },
  );
}
