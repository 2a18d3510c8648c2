import path from 'node:path';
import { DEFAULT_QUEUES, type QueueNames } from './queue-topology';
import { validateSettings, type SettingsToCheck } from './settings-validation';

/**
 * App settings read from the environment (Functions app settings arrive as env vars).
 * Every name the code reads is listed in {@link SETTING_NAMES}, so that infra and
 * `local.settings.example.json` can be checked against it.
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
   * Checked when storage opens (as given here).
   */
  azuritePort?: string;
  /**
   * Where the local host keeps its tables when no storage is set (`HIGHWATER_LOCAL_TABLES`, as
   * given, checked when storage opens): `azurite` (default: a local Azurite, as the Functions host
   * would use) or `sqlite` (`<dataDir>/tables.db`, no server process; see docs/benchmarks.md).
   */
  localTables?: string;
  /**
   * How durable the local bus's sends are (`HIGHWATER_LOCAL_BUS_SYNCHRONOUS`, as given, checked
   * when the bus opens): `NORMAL` (default) survives a crash of the process, `FULL` a power loss
   * too (a send waits for an fdatasync of the bus's WAL). Unused with Service Bus.
   */
  localBusSynchronous?: string;
  /**
   * Where the local host runs its queue processors (`HIGHWATER_LOCAL_PROCESSING`, as given,
   * checked when the host starts): `worker` (a worker thread, the second core) or `inline` (the
   * main thread). Default: `src/host/processing-mode.ts`. Unused by the Functions app.
   */
  localProcessing?: string;
  /** Time zone of job schedules (IANA). Default `UTC`. */
  timeZone: string;
  /** NCRONTAB of the GetChanges timer (how often due jobs are looked for). Default every 10 s. */
  getChangesSchedule: string;
  queues: QueueNames;
}

export const SETTING_NAMES = {
  storage: 'AzureWebJobsStorage',
  tablesEndpoint: 'HIGHWATER_TABLES_ENDPOINT',
  serviceBus: 'SERVICEBUS_CONNECTION_STRING',
  serviceBusNamespace: 'ServiceBusConnection__fullyQualifiedNamespace',
  dataDir: 'HIGHWATER_DATA_DIR',
  azuritePort: 'HIGHWATER_AZURITE_PORT',
  localTables: 'HIGHWATER_LOCAL_TABLES',
  localBusSynchronous: 'HIGHWATER_LOCAL_BUS_SYNCHRONOUS',
  localProcessing: 'HIGHWATER_LOCAL_PROCESSING',
  timeZone: 'HIGHWATER_TIMEZONE',
  getChangesSchedule: 'GetChangesSchedule',
  queueHigh: 'QUEUE_HIGH',
  queueNormal: 'QUEUE_NORMAL',
  queueLow: 'QUEUE_LOW',
  queueTransitiveHigh: 'QUEUE_TRANSITIVE_HIGH',
  queueTransitiveNormal: 'QUEUE_TRANSITIVE_NORMAL',
  queueTransitiveLow: 'QUEUE_TRANSITIVE_LOW',
  queueIgnored: 'QUEUE_IGNORED',
} as const;

/**
 * The Service Bus triggers' connection setting (a connection string under `func start`). The code
 * falls back to it when `SERVICEBUS_CONNECTION_STRING` is not set, so the triggers and the code
 * cannot reach different brokers. Not in {@link SETTING_NAMES}: Azure uses the namespace instead.
 */
export const TRIGGER_CONNECTION_SETTING = 'ServiceBusConnection';

export const DEFAULT_GET_CHANGES_SCHEDULE = '*/10 * * * * *';

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Reads settings from an environment (default `process.env`) and checks them.
 * `UseDevelopmentStorage=true` counts as unset storage: the local Azurite is used.
 * @throws ConfigValidationError naming every invalid setting (`app settings: NAME: …`).
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Settings {
  const storage = nonEmpty(env[SETTING_NAMES.storage]);
  const q = (name: string, fallback: string) => nonEmpty(env[name]) ?? fallback;
  const settings: Settings = {
    storageConnectionString: storage && !/UseDevelopmentStorage=true/i.test(storage) ? storage : undefined,
    tablesEndpoint: nonEmpty(env[SETTING_NAMES.tablesEndpoint]),
    serviceBusConnectionString: nonEmpty(env[SETTING_NAMES.serviceBus]) ?? nonEmpty(env[TRIGGER_CONNECTION_SETTING]),
    serviceBusNamespace: nonEmpty(env[SETTING_NAMES.serviceBusNamespace]),
    dataDir: path.resolve(cwd, nonEmpty(env[SETTING_NAMES.dataDir]) ?? '.data'),
    azuritePort: nonEmpty(env[SETTING_NAMES.azuritePort]),
    localTables: nonEmpty(env[SETTING_NAMES.localTables]),
    localBusSynchronous: nonEmpty(env[SETTING_NAMES.localBusSynchronous]),
    localProcessing: nonEmpty(env[SETTING_NAMES.localProcessing]),
    timeZone: nonEmpty(env[SETTING_NAMES.timeZone]) ?? 'UTC',
    getChangesSchedule: nonEmpty(env[SETTING_NAMES.getChangesSchedule]) ?? DEFAULT_GET_CHANGES_SCHEDULE,
    queues: {
      work: {
        high: q(SETTING_NAMES.queueHigh, DEFAULT_QUEUES.work.high),
        normal: q(SETTING_NAMES.queueNormal, DEFAULT_QUEUES.work.normal),
        low: q(SETTING_NAMES.queueLow, DEFAULT_QUEUES.work.low),
      },
      transitive: {
        high: q(SETTING_NAMES.queueTransitiveHigh, DEFAULT_QUEUES.transitive.high),
        normal: q(SETTING_NAMES.queueTransitiveNormal, DEFAULT_QUEUES.transitive.normal),
        low: q(SETTING_NAMES.queueTransitiveLow, DEFAULT_QUEUES.transitive.low),
      },
      ignored: q(SETTING_NAMES.queueIgnored, DEFAULT_QUEUES.ignored),
    },
  };
  // Before anything starts: a bad schedule used to crash the host once it was serving.
  validateSettings(settingsToCheck(settings));
  return settings;
}

/** Each checked setting's name with its value (defaults included: a default is checked too). */
function settingsToCheck(s: Settings): SettingsToCheck {
  const n = SETTING_NAMES;
  const { work, transitive, ignored } = s.queues;
  return {
    getChangesSchedule: { name: n.getChangesSchedule, value: s.getChangesSchedule },
    timeZone: { name: n.timeZone, value: s.timeZone },
    queues: [
      { name: n.queueHigh, value: work.high },
      { name: n.queueNormal, value: work.normal },
      { name: n.queueLow, value: work.low },
      { name: n.queueTransitiveHigh, value: transitive.high },
      { name: n.queueTransitiveNormal, value: transitive.normal },
      { name: n.queueTransitiveLow, value: transitive.low },
      { name: n.queueIgnored, value: ignored },
    ],
    urls: s.tablesEndpoint ? [{ name: n.tablesEndpoint, value: s.tablesEndpoint }] : [],
  };
}
