import path from 'node:path';
import type { QueueNames } from './queue-topology';
import { APP_SETTINGS } from './app-settings';
import { rawSetting, readSetting, type AppSetting } from './setting-spec';
import { validateSettings } from './settings-validation';

export { TRIGGER_CONNECTION_SETTING } from './app-settings';

/**
 * The platform's app settings, read from the environment (Functions app settings arrive as env
 * vars). Every setting is declared once in the registry, {@link APP_SETTINGS}. The four local
 * ones are kept as given (trimmed): {@link readSettings} has checked them, and the code that opens
 * the storage, the bus or the processors parses them again with the same schema, so that
 * settings built by hand (tests, the worker thread) are refused with the same message.
 */
export interface Settings {
  /** Table storage connection string (`AzureWebJobsStorage`); unset → local Azurite. */
  storageConnectionString?: string;
  /** Table storage account URL for identity-based access (`HIGHWATER_TABLES_ENDPOINT`). */
  tablesEndpoint?: string;
  /** Service Bus connection string (`SERVICEBUS_CONNECTION_STRING`, else `ServiceBusConnection`); unset → local bus. */
  serviceBusConnectionString?: string;
  /** Service Bus namespace for managed identity (`ServiceBusConnection__fullyQualifiedNamespace`). */
  serviceBusNamespace?: string;
  /** Folder for local state: Azurite data, the local bus database, metrics. Default `.data`. */
  dataDir: string;
  /**
   * Table port of the local Azurite (`HIGHWATER_AZURITE_PORT`), used when no storage is set: one
   * serving this `dataDir` is reused, one serving another folder is refused. Default 10002.
   */
  azuritePort?: string;
  /**
   * Where the local host keeps its tables when no storage is set (`HIGHWATER_LOCAL_TABLES`):
   * `azurite` (default: a local Azurite, as the Functions host
   * would use) or `sqlite` (`<dataDir>/tables.db`, no server process; see docs/benchmarks.md).
   */
  localTables?: string;
  /**
   * How durable the local bus's sends are (`HIGHWATER_LOCAL_BUS_SYNCHRONOUS`):
   * `NORMAL` (default) survives a crash of the process, `FULL` a power loss
   * too (a send waits for an fdatasync of the bus's WAL). Unused with Service Bus.
   */
  localBusSynchronous?: string;
  /**
   * Where the local host runs its queue processors (`HIGHWATER_LOCAL_PROCESSING`):
   * `worker` (a worker thread, the second core) or `inline` (the
   * main thread). Default: `src/host/processing-mode.ts`. Unused by the Functions app.
   */
  localProcessing?: string;
  /** Time zone of job schedules (IANA). Default `UTC`. */
  timeZone: string;
  /** NCRONTAB of the GetChanges timer (how often due jobs are looked for). Default every 10 s. */
  getChangesSchedule: string;
  queues: QueueNames;
}

/**
 * Reads settings from an environment (default `process.env`) and checks every declared app
 * setting (`app-settings.ts`) at once, before anything starts: a bad value stops the host or the
 * command naming the setting, not the first run that uses it.
 * `UseDevelopmentStorage=true` counts as unset storage: the local Azurite is used.
 * @throws ConfigValidationError naming every invalid setting (`app settings: NAME: …`).
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Settings {
  validateSettings(env);
  const s = APP_SETTINGS;
  const value = <T>(setting: AppSetting<T>): T => readSetting(env, setting);
  const given = (setting: AppSetting) => rawSetting(env, setting.name);
  const storage = value(s.storage);
  return {
    storageConnectionString: storage && !/UseDevelopmentStorage=true/i.test(storage) ? storage : undefined,
    tablesEndpoint: value(s.tablesEndpoint),
    serviceBusConnectionString: value(s.serviceBus) ?? value(s.triggerConnection),
    serviceBusNamespace: value(s.serviceBusNamespace),
    dataDir: path.resolve(cwd, value(s.dataDir)),
    azuritePort: given(s.azuritePort),
    localTables: given(s.localTables),
    localBusSynchronous: given(s.localBusSynchronous),
    localProcessing: given(s.localProcessing),
    timeZone: value(s.timeZone),
    getChangesSchedule: value(s.getChangesSchedule),
    queues: {
      work: { high: value(s.queueHigh), normal: value(s.queueNormal), low: value(s.queueLow) },
      transitive: { high: value(s.queueTransitiveHigh), normal: value(s.queueTransitiveNormal), low: value(s.queueTransitiveLow) },
      ignored: value(s.queueIgnored),
    },
  };
}
