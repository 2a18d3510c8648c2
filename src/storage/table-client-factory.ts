import fs from 'node:fs';
import path from 'node:path';
import { TableClient, type TableServiceClientOptions } from '@azure/data-tables';
import type { Settings } from '../platform/settings';
import { APP_SETTINGS } from '../platform/app-settings';
import { parseSetting } from '../platform/setting-spec';
import { ConfigError } from '../platform/errors';
import { sayWhenNewDataFolder } from '../platform/new-data-folder-notice';
import { AzureTableStore, type ManyLookups, PARTITIONS_IN_FLIGHT } from './azure-table-store';
import { AZURITE_ACCOUNT_NAME, AZURITE_DEFAULT_TABLE_PORT, azuriteConnectionString, isAzuriteListening, startAzurite, type AzuriteProcess } from './azurite';
import type { TableStorage, TableStore } from './table-store';
import { LOCAL_TABLES_FILE } from './local-tables-file';

export interface OpenTableStorageOptions {
  /** Port of the local Azurite to reuse, or to start one on, when no storage is configured. Default 10002. */
  localPort?: number;
  /** How long to wait for a started Azurite. Default 20,000 ms. */
  startTimeoutMs?: number;
  /** Retries of a failed request inside the SDK (exponential backoff). Default: the SDK's (3). */
  maxRetries?: number;
  /** Receives one-line notices (e.g. that Azurite was started). Default: discarded. */
  log?: (line: string) => void;
}

type ClientFactory = (table: string) => TableClient;

/** How the stores use the service, which differs between Azure and Azurite (azure-table-store.ts). */
interface StoreTuning {
  readonly lookups: ManyLookups;
  readonly partitionsInFlight: number;
}
/** Point reads and partitions side by side: every request is a round trip. */
const AZURE_TUNING: StoreTuning = { lookups: 'point', partitionsInFlight: PARTITIONS_IN_FLIGHT };
/** Queries of 14 row keys and one transaction at a time: Azurite's one process does all the work. */
const AZURITE_TUNING: StoreTuning = { lookups: 'query', partitionsInFlight: 1 };

/** {@link TableStorage} handing out {@link AzureTableStore}s; stops its own Azurite on close. */
class ClientTableStorage implements TableStorage {
  private readonly tables = new Map<string, Promise<TableStore>>();

  constructor(
    readonly description: string,
    private readonly makeClient: ClientFactory,
    private readonly azurite?: AzuriteProcess,
    private readonly tuning: StoreTuning = AZURE_TUNING,
  ) {}

  table(name: string): Promise<TableStore> {
    let pending = this.tables.get(name);
    if (!pending) {
      pending = (async () => {
        const store = new AzureTableStore(this.makeClient(name), {}, this.tuning.lookups, this.tuning.partitionsInFlight);
        await store.createIfMissing();
        return store;
      })();
      // A failed creation (storage not reachable yet) must not stick: the next call retries.
      pending.catch(() => this.tables.delete(name));
      this.tables.set(name, pending);
    }
    return pending;
  }

  async close(): Promise<void> {
    this.tables.clear();
    await this.azurite?.stop();
  }
}

function clientOptions(insecure: boolean, options: OpenTableStorageOptions): TableServiceClientOptions {
  return { allowInsecureConnection: insecure, ...(options.maxRetries === undefined ? {} : { retryOptions: { maxRetries: options.maxRetries } }) };
}

function fromConnectionString(
  connectionString: string,
  description: string,
  options: OpenTableStorageOptions,
  azurite?: AzuriteProcess,
): TableStorage {
  // Azurite and other local endpoints speak plain HTTP, which the SDK refuses unless told.
  const insecure = /TableEndpoint=http:\/\//i.test(connectionString) || /DefaultEndpointsProtocol=http;/i.test(connectionString);
  const makeClient: ClientFactory = (table) => {
    try {
      return TableClient.fromConnectionString(connectionString, table, clientOptions(insecure, options));
    } catch {
      // The SDK's message may quote the connection string, account key included.
      throw new ConfigError(`${APP_SETTINGS.storage.name} is not a valid storage connection string`);
    }
  };
  makeClient('probe'); // fail at open, not at first use, when the string is malformed
  return new ClientTableStorage(description, makeClient, azurite, isEmulator(connectionString) ? AZURITE_TUNING : AZURE_TUNING);
}

/** Whether a connection string names the storage emulator (Azurite): its well-known account, or the development shortcut. */
export function isEmulator(connectionString: string): boolean {
  if (/(^|;)\s*UseDevelopmentStorage\s*=\s*true\s*(;|$)/i.test(connectionString)) return true;
  return new RegExp(`(^|;)\\s*AccountName\\s*=\\s*${AZURITE_ACCOUNT_NAME}\\s*(;|$)`, 'i').test(connectionString);
}

function describeConnectionString(connectionString: string): string {
  const account = /AccountName=([^;]+)/i.exec(connectionString)?.[1];
  const endpoint = /TableEndpoint=([^;]+)/i.exec(connectionString)?.[1];
  if (endpoint) return `Table Storage at ${endpoint.replace(/\?.*$/, '')}`;
  return account ? `Table Storage account ${account}` : 'Table Storage';
}

/**
 * Table and row where a local Azurite started by Highwater records the data folder it serves, so
 * that an instance with another `HIGHWATER_DATA_DIR` does not silently share its tables.
 */
export const LOCAL_INSTANCE_TABLE = 'highwaterlocal';
const INSTANCE_KEYS = { partitionKey: 'instance', rowKey: 'dataDir' } as const;

/** Where the local tables are kept: `HIGHWATER_LOCAL_TABLES`. @throws ConfigError naming the setting and the value. */
export function parseLocalTables(value: string | undefined): 'azurite' | 'sqlite' {
  return parseSetting(APP_SETTINGS.localTables, value);
}

/** `HIGHWATER_AZURITE_PORT` as a port number. @throws ConfigError naming the setting and the value. */
export function parseAzuritePort(value: string | undefined): number | undefined {
  return parseSetting(APP_SETTINGS.azuritePort, value);
}

/** The data folder an Azurite serves, as recorded by the Highwater that started it (undefined: none recorded). */
async function servedDataDir(storage: TableStorage): Promise<string | undefined> {
  const row = await (await storage.table(LOCAL_INSTANCE_TABLE)).get(INSTANCE_KEYS.partitionKey, INSTANCE_KEYS.rowKey);
  const value = row?.properties.DataDir;
  return typeof value === 'string' ? value : undefined;
}

async function reuseLocalAzurite(port: number, dataDir: string, options: OpenTableStorageOptions): Promise<TableStorage> {
  const storage = fromConnectionString(azuriteConnectionString(port), `Azurite at 127.0.0.1:${port} (already running)`, options);
  const served = await servedDataDir(storage);
  if (served !== undefined && path.resolve(served) !== path.resolve(dataDir)) {
    await storage.close();
    throw new ConfigError(
      `the Azurite at 127.0.0.1:${port} serves the data folder ${served}, not ${dataDir} (${APP_SETTINGS.dataDir.name}): ` +
        `stop the host that uses it, or give this data folder its own Azurite with ${APP_SETTINGS.azuritePort.name}=<another port>`,
    );
  }
  return storage;
}

async function openLocalAzurite(dataDir: string, settingPort: string | undefined, options: OpenTableStorageOptions): Promise<TableStorage> {
  const port = options.localPort ?? parseAzuritePort(settingPort) ?? AZURITE_DEFAULT_TABLE_PORT;
  if (await isAzuriteListening(port)) return reuseLocalAzurite(port, dataDir, options);
  const location = path.join(dataDir, 'azurite');
  let azurite: AzuriteProcess;
  try {
    azurite = await startAzurite({ port, location, startTimeoutMs: options.startTimeoutMs });
  } catch (err) {
    const inUse = /EADDRINUSE/.test(String(err));
    throw new ConfigError(
      inUse
        ? `port ${port} is in use by something that does not answer as Azurite: free the port or set ${APP_SETTINGS.storage.name}`
        : `could not start Azurite: ${(err as Error).message}`,
      { cause: err },
    );
  }
  options.log?.(`started Azurite at 127.0.0.1:${port}, data in ${location}`);
  const storage = fromConnectionString(azurite.connectionString, `Azurite at 127.0.0.1:${port} (started, data in ${location})`, options, azurite);
  try {
    await (await storage.table(LOCAL_INSTANCE_TABLE)).upsert({ ...INSTANCE_KEYS, properties: { DataDir: path.resolve(dataDir) } });
  } catch (err) {
    await storage.close();
    throw err;
  }
  return storage;
}

/**
 * Opens table storage as the settings say:
 * 1. `storageConnectionString` (`AzureWebJobsStorage`): that account (Azure or any Azurite);
 * 2. else `tablesEndpoint` (`HIGHWATER_TABLES_ENDPOINT`): that account with
 *    `DefaultAzureCredential` (managed identity in Azure, developer login locally);
 * 3. else, with `localTables` (`HIGHWATER_LOCAL_TABLES`) `sqlite`, the SQLite file
 *    `<dataDir>/tables.db`;
 * 4. else the local Azurite on `localPort` (else `azuritePort`, `HIGHWATER_AZURITE_PORT`, else
 *    10002): one already answering is reused unless a Highwater started it for another data
 *    folder (ConfigError); otherwise one is started as a child process with persistent data in
 *    `<dataDir>/azurite`, records that folder, and is stopped by `close()`.
 */
export async function openTableStorage(
  settings: Pick<Settings, 'storageConnectionString' | 'tablesEndpoint' | 'dataDir'> & Partial<Pick<Settings, 'azuritePort' | 'localTables'>>,
  options: OpenTableStorageOptions = {},
): Promise<TableStorage> {
  if (settings.storageConnectionString) {
    return fromConnectionString(settings.storageConnectionString, describeConnectionString(settings.storageConnectionString), options);
  }
  if (settings.tablesEndpoint) {
    const endpoint = settings.tablesEndpoint;
    // Loaded only here: a host on a connection string or the local Azurite never carries it.
    const { DefaultAzureCredential } = await import('@azure/identity');
    const credential = new DefaultAzureCredential();
    const insecure = endpoint.startsWith('http://');
    return new ClientTableStorage(
      `Table Storage at ${endpoint} (identity)`,
      (table) => new TableClient(endpoint, table, credential, clientOptions(insecure, options)),
    );
  }
  // Local tables from here on, in the data folder.
  sayWhenNewDataFolder(settings.dataDir);
  if (parseLocalTables(settings.localTables) === 'sqlite') {
    const fresh = !fs.existsSync(path.join(settings.dataDir, LOCAL_TABLES_FILE));
    // Loaded only here: better-sqlite3 is native, and the Functions app must load without it.
    const { SqliteTableStorage } = await import('./sqlite-table-storage');
    const storage = SqliteTableStorage.open(settings.dataDir);
    if (fresh && fs.existsSync(path.join(settings.dataDir, 'azurite'))) {
      // Nothing is migrated: watermarks start empty, so every job reads its source from the start.
      options.log?.(`${storage.description} are new: the tables in ${path.join(settings.dataDir, 'azurite')} (Azurite) are not read; every job starts without a watermark (to keep them: stop, delete ${path.join(settings.dataDir, LOCAL_TABLES_FILE)}, run \`highwater tables copy --to sqlite\`)`);
    }
    return storage;
  }
  const sqliteFile = path.join(settings.dataDir, LOCAL_TABLES_FILE);
  if (fs.existsSync(sqliteFile)) {
    // A CLI command without the host's setting would read and write other tables than the host.
    options.log?.(`${sqliteFile} exists but ${APP_SETTINGS.localTables.name} is not sqlite: these are Azurite's tables, not those (delete the file if it is no longer used)`);
  }
  return openLocalAzurite(settings.dataDir, settings.azuritePort, options);
}
