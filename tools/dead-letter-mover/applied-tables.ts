import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Settings } from '../../src/platform/settings';
import { openTableStorage, parseLocalTables } from '../../src/storage/table-client-factory';
import { LOCAL_TABLES_FILE } from '../../src/storage/local-tables-file';
import type { TableStorage } from '../../src/storage/table-store';

/**
 * The table storage where the processor records the changes it applied (the stale-message
 * guard's `appliedversions`), found from the same settings as the host's: a storage connection
 * string or tables endpoint; else, beside a local bus, the data folder's SQLite tables
 * (`HIGHWATER_LOCAL_TABLES=sqlite`) or its Azurite folder (an Azurite already answering is
 * reused, else one is started on that folder and stopped at the end).
 * @returns undefined when there is none: no host ever applied anything there to compare with.
 */
export async function openAppliedTables(settings: Settings): Promise<TableStorage | undefined> {
  if (settings.storageConnectionString || settings.tablesEndpoint) return openTableStorage(settings);
  if (settings.serviceBusConnectionString || settings.serviceBusNamespace) return undefined;
  const local = parseLocalTables(settings.localTables) === 'sqlite' ? LOCAL_TABLES_FILE : 'azurite';
  if (!existsSync(path.join(settings.dataDir, local))) return undefined;
  return openTableStorage(settings);
}
