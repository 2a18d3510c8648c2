import path from 'node:path';
import { TableClient, type TableServiceClientOptions } from '@azure/data-tables';
import type { Settings } from '../config/settings';
import { SETTING_NAMES } from '../config/settings';
import { ConfigError } from '../model/errors';
import { AzureTableStore } from './azure-table-store';
import { AZURITE_DEFAULT_TABLE_PORT, azuriteConnectionString, isAzuriteListening, startAzurite, type AzuriteProcess } from './azurite';
import type { TableStorage, TableStore } from './table-store';

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

/** {@link TableStorage} handing out {@link AzureTableStore}s; stops its own Azurite on close. */
class ClientTableStorage implements TableStorage {
  private readonly tables = new Map<string, Promise<TableStore>>();

  constructor(
    readonly description: string,
    private readonly makeClient: ClientFactory,
    private readonly azurite?: AzuriteProcess,
  ) {}

  table(name: string): Promise<TableStore> {
    let pending = this.tables.get(name);
    if (!pending) {
      pending = (async () => {
        const store = new AzureTableStore(this.makeClient(name));
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
      throw new ConfigError(`${SETTING_NAMES.storage} is not a valid storage connection string`);
    }
  };
  makeClient('probe'); // fail at open, not at first use, when the string is malformed
  return new ClientTableStorage(description, makeClient, azurite);
}

function describeConnectionString(connectionString: string): string {
  const account = /AccountName=([^;]+)/i.exec(connectionString)?.[1];
  const endpoint = /TableEndpoint=([^;]+)/i.exec(connectionString)?.[1];
  if (endpoint) return `Table Storage at ${endpoint.replace(/\?.*$/, '')}`;
  return account ? `Table Storage account ${account}` : 'Table Storage';
}

async function openLocalAzurite(dataDir: string, options: OpenTableStorageOptions): Promise<TableStorage> {
  const port = options.localPort ?? AZURITE_DEFAULT_TABLE_PORT;
  if (await isAzuriteListening(port)) {
    return fromConnectionString(azuriteConnectionString(port), `Azurite at 127.0.0.1:${port} (already running)`, options);
  }
  const location = path.join(dataDir, 'azurite');
  let azurite: AzuriteProcess;
  try {
    azurite = await startAzurite({ port, location, startTimeoutMs: options.startTimeoutMs });
  } catch (err) {
    const inUse = /EADDRINUSE/.test(String(err));
    throw new ConfigError(
      inUse
        ? `port ${port} is in use by something that does not answer as Azurite: free the port or set ${SETTING_NAMES.storage}`
        : `could not start Azurite: ${(err as Error).message}`,
      { cause: err },
    );
  }
  options.log?.(`started Azurite at 127.0.0.1:${port}, data in ${location}`);
  return fromConnectionString(azurite.connectionString, `Azurite at 127.0.0.1:${port} (started, data in ${location})`, options, azurite);
}

/**
 * Opens table storage as the settings say:
 * 1. `storageConnectionString` (`AzureWebJobsStorage`): that account (Azure or any Azurite);
 * 2. else `tablesEndpoint` (`HIGHWATER_TABLES_ENDPOINT`): that account with
 *    `DefaultAzureCredential` (managed identity in Azure, developer login locally);
 * 3. else the local Azurite: one already answering on `localPort` is reused, otherwise one is
 *    started as a child process with persistent data in `<dataDir>/azurite` and stopped by `close()`.
 */
export async function openTableStorage(
  settings: Pick<Settings, 'storageConnectionString' | 'tablesEndpoint' | 'dataDir'>,
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
  return openLocalAzurite(settings.dataDir, options);
}
