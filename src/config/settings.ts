import path from 'node:path';
import type { Priority } from '../model/job';

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
   * How durable the local bus's sends are (`HIGHWATER_LOCAL_BUS_SYNCHRONOUS`, as given, checked
   * when the bus opens): `NORMAL` (default) survives a crash of the process, `FULL` a power loss
   * too (a send waits for an fdatasync of the bus's WAL). Unused with Service Bus.
   */
  localBusSynchronous?: string;
  /** Time zone of job schedules (IANA). Default `UTC`. */
  timeZone: string;
  /** NCRONTAB of the GetChanges timer (how often due jobs are looked for). Default every 10 s. */
  getChangesSchedule: string;
  queues: QueueNames;
}

export interface QueueNames {
  work: Record<Priority, string>;
  transitive: Record<Priority, string>;
  ignored: string;
}

export const SETTING_NAMES = {
  storage: 'AzureWebJobsStorage',
  tablesEndpoint: 'HIGHWATER_TABLES_ENDPOINT',
  serviceBus: 'SERVICEBUS_CONNECTION_STRING',
  serviceBusNamespace: 'ServiceBusConnection__fullyQualifiedNamespace',
  dataDir: 'HIGHWATER_DATA_DIR',
  localBusSynchronous: 'HIGHWATER_LOCAL_BUS_SYNCHRONOUS',
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

export const DEFAULT_QUEUES: QueueNames = {
  work: { high: 'sbqhigh', normal: 'sbqnormal', low: 'sbqlow' },
  transitive: { high: 'sbqtransitivehigh', normal: 'sbqtransitivenormal', low: 'sbqtransitivelow' },
  ignored: 'sbqignored',
};

/** Every queue name in use, work queues first. */
export function allQueueNames(queues: QueueNames): string[] {
  return [...Object.values(queues.work), ...Object.values(queues.transitive), queues.ignored];
}

/** The priority whose work or transitive queue has this name, if any. */
export function priorityOfQueue(queues: QueueNames, queue: string): Priority | undefined {
  for (const p of ['high', 'normal', 'low'] as const) {
    if (queues.work[p] === queue || queues.transitive[p] === queue) return p;
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Reads settings from an environment (default `process.env`).
 * `UseDevelopmentStorage=true` counts as unset storage: the local Azurite is used.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Settings {
  const storage = nonEmpty(env[SETTING_NAMES.storage]);
  const q = (name: string, fallback: string) => nonEmpty(env[name]) ?? fallback;
  return {
    storageConnectionString: storage && !/UseDevelopmentStorage=true/i.test(storage) ? storage : undefined,
    tablesEndpoint: nonEmpty(env[SETTING_NAMES.tablesEndpoint]),
    serviceBusConnectionString: nonEmpty(env[SETTING_NAMES.serviceBus]) ?? nonEmpty(env[TRIGGER_CONNECTION_SETTING]),
    serviceBusNamespace: nonEmpty(env[SETTING_NAMES.serviceBusNamespace]),
    dataDir: path.resolve(cwd, nonEmpty(env[SETTING_NAMES.dataDir]) ?? '.data'),
    localBusSynchronous: nonEmpty(env[SETTING_NAMES.localBusSynchronous]),
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
}
