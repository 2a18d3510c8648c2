import path from 'node:path';
import { allQueueNames, type Settings } from '../config/settings';
import { LocalBus } from './local/local-bus';
import type { MessageBus } from './message-bus';

/** Where the bus runs, for messages (never secrets). */
export function describeBus(settings: Pick<Settings, 'serviceBusConnectionString' | 'serviceBusNamespace' | 'dataDir'>): string {
  if (settings.serviceBusConnectionString) return 'Azure Service Bus (connection string)';
  if (settings.serviceBusNamespace) return `Azure Service Bus ${settings.serviceBusNamespace} (managed identity)`;
  return `local bus ${path.join(settings.dataDir, 'bus.sqlite')}`;
}

/**
 * The bus the settings select: Azure Service Bus when a connection string or namespace is set,
 * else the embedded local bus under the data folder with every queue of the settings declared.
 */
export async function createBus(settings: Settings, options: { clock?: () => Date } = {}): Promise<MessageBus> {
  const knownQueues = allQueueNames(settings.queues);
  // The Service Bus SDK (with its AMQP stack) is loaded only when chosen: a local host never carries it.
  if (settings.serviceBusConnectionString) {
    const { AzureServiceBus } = await import('./azure/azure-bus');
    return new AzureServiceBus({ connectionString: settings.serviceBusConnectionString, knownQueues });
  }
  if (settings.serviceBusNamespace) {
    const { AzureServiceBus } = await import('./azure/azure-bus');
    return new AzureServiceBus({ fullyQualifiedNamespace: settings.serviceBusNamespace, knownQueues });
  }
  return LocalBus.open({ dataDir: settings.dataDir, queues: knownQueues, clock: options.clock });
}
