import type { Command } from 'commander';
import type { Settings } from '../../platform/settings';
import { APP_SETTINGS } from '../../platform/app-settings';
import type { TableStorage } from '../../storage/table-store';
import { UsageError } from '../cli-error';
import { defaultStorageCommandDeps, type StorageCommandDeps } from './config';

const PLACES = ['azurite', 'sqlite'] as const;
type Place = (typeof PLACES)[number];

/**
 * Every table Highwater keeps, which `tables copy` moves. Not the record of which data folder a
 * local Azurite serves (`highwaterlocal`): it belongs to that Azurite. The modules load on use.
 */
export async function highwaterTables(): Promise<string[]> {
  const [config, watermark, runs, runStatus, hashes, versions, deletions, recoveries, couplings] = await Promise.all([
    import('../../config/config-store'),
    import('../../model/watermark-record'),
    import('../../detect/run-log-store'),
    import('../../http/run-status-store'),
    import('../../process/applied-hash-store'),
    import('../../storage/applied-version-store'),
    import('../../process/deletion-store'),
    import('../../process/shared-recoveries'),
    import('../../twoway/table-coupling-store'),
  ]);
  return [
    ...Object.values(config.CONFIG_TABLES),
    watermark.WATERMARK_TABLE,
    runs.RUNS_TABLE,
    runStatus.RUN_STATUS_TABLE,
    hashes.APPLIED_HASHES_TABLE,
    versions.APPLIED_VERSIONS_TABLE,
    deletions.DELETIONS_TABLE,
    recoveries.TARGET_RECOVERIES_TABLE,
    couplings.COUPLINGS_TABLE,
    couplings.PAIR_CONFLICTS_TABLE,
  ];
}

/**
 * Copies every row of `tables` from one storage to the other. Checks first that the destination
 * holds none of them (a copy over newer watermarks would move them back). @returns rows per table.
 * @throws UsageError naming a destination table that holds rows.
 */
async function copyTables(from: TableStorage, to: TableStorage, tables: readonly string[]): Promise<Array<{ table: string; rows: number }>> {
  for (const name of tables) {
    const held = (await (await to.table(name)).list()).length;
    if (held > 0) throw new UsageError(`${to.description}: table "${name}" already holds ${held} row${held === 1 ? '' : 's'}; tables copy writes only into empty tables`);
  }
  const copied: Array<{ table: string; rows: number }> = [];
  for (const name of tables) {
    const rows = await (await from.table(name)).list();
    await (await to.table(name)).submitBatch(rows.map((row) => ({ kind: 'upsert', row })));
    copied.push({ table: name, rows: rows.length });
  }
  return copied;
}

function place(value: string): Place {
  const lower = value.toLowerCase();
  if ((PLACES as readonly string[]).includes(lower)) return lower as Place;
  throw new UsageError(`--to must be ${PLACES.join(' or ')}, got ${JSON.stringify(value)}`);
}

/**
 * `highwater tables copy --to sqlite|azurite`: moves the local tables (configuration, watermarks,
 * runs, applied hashes, deletions, couplings) between a local Azurite and `<dataDir>/tables.db`, so that
 * switching `HIGHWATER_LOCAL_TABLES` does not start every job over. Stop the host first.
 */
export function registerTablesCommands(program: Command, deps: StorageCommandDeps = defaultStorageCommandDeps): void {
  const tables = program.command('tables').description('move the local tables between Azurite and SQLite');
  tables
    .command('copy')
    .description(`copy every table from the other local store into an empty one (then set ${APP_SETTINGS.localTables.name})`)
    .requiredOption('--to <place>', `where to: ${PLACES.join(' or ')}`)
    .action(async (options: { to: string }) => {
      const to = place(options.to);
      const from: Place = to === 'sqlite' ? 'azurite' : 'sqlite';
      const settings = deps.settings();
      const set = settings.storageConnectionString ? APP_SETTINGS.storage.name : settings.tablesEndpoint ? APP_SETTINGS.tablesEndpoint.name : undefined;
      if (set) throw new UsageError(`tables copy moves the local tables, but ${set} is set: unset it to copy between the local Azurite and SQLite`);
      // Loaded on use, as the stores are: every CLI start registers this command.
      const { LOCAL_TABLES_FILE } = await import('../../storage/sqlite-table-storage');
      // Both stores side by side are the point here: not the warnings about one beside the other
      // (both name the tables file), but "started Azurite …".
      const notice = (line: string) => void (line.includes(LOCAL_TABLES_FILE) || deps.notice(line));
      const open = (where: Place) => deps.openStorage({ ...settings, localTables: where } satisfies Settings, notice);
      const source = await open(from);
      try {
        const destination = await open(to);
        try {
          for (const { table, rows } of await copyTables(source, destination, await highwaterTables())) deps.print(`${table}: ${rows} row${rows === 1 ? '' : 's'}`);
          deps.print(`copied from ${source.description} to ${destination.description}; now set ${APP_SETTINGS.localTables.name}=${to}`);
        } finally {
          await destination.close();
        }
      } finally {
        await source.close();
      }
    });
}
