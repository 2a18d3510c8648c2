import path from 'node:path';
import type { Clock } from '../platform/clock';
import type { Settings } from '../platform/settings';
import { APP_SETTINGS } from '../platform/app-settings';
import { parseSetting } from '../platform/setting-spec';
import { errorMessage } from '../platform/errors';
import { BusError, type MessageBus } from './message-bus';
import { allQueueNames } from '../platform/queue-topology';
import { sayWhenNewDataFolder } from '../platform/new-data-folder-notice';

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
export async function createBus(settings: Settings, options: { clock?: Pick<Clock, 'now'> } = {}): Promise<MessageBus> {
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
  sayWhenNewDataFolder(settings.dataDir);
  const synchronous = localBusSynchronous(settings.localBusSynchronous);
  // The local bus (better-sqlite3, a native module) likewise: the Functions app never loads it.
  const { LocalBus } = await import('./local/local-bus');
  return LocalBus.open({ dataDir: settings.dataDir, queues: knownQueues, clock: options.clock, ...(synchronous ? { synchronous } : {}) });
}

/**
 * The local bus's `synchronous` option from its setting (any case).
 * @throws BusError `InvalidArgument` naming the setting when it is neither NORMAL nor FULL.
 */
export function localBusSynchronous(value: string | undefined): 'NORMAL' | 'FULL' | undefined {
  try {
    return parseSetting(APP_SETTINGS.localBusSynchronous, value);
  } catch (err) {
    throw new BusError('InvalidArgument', errorMessage(err));
  }
}
