import path from 'node:path';
import type { Command } from 'commander';
import type { ConfigDiff } from '../../config/config-diff';
import type { ValidateOptions } from '../../config/validate-config';
import type { HighwaterConfig } from '../../model/config';
import { readSettings, type Settings } from '../../platform/settings';
import type { TableStorage } from '../../storage/table-store';
import { terminalText } from '../../platform/terminal-text';
import { ConfigValidationError, formatIssueNamed, type ConfigIssue } from '../../platform/config-issue';
import { ReportedFailure } from '../cli-error';
import { missingFiles, rebaseFilePaths, resolveFilePaths } from './config-file-paths';

// The modules behind the commands (schema, YAML, the Tables SDK) load when a command runs: every
// CLI start registers these commands, most runs use none of them.
async function configModules() {
  const [diff, store, load, files, pairs] = await Promise.all([
    import('../../config/config-diff'),
    import('../../config/config-store'),
    import('../../config/load-config'),
    import('../../config/config-files'),
    import('../../config/pair-expansion'),
  ]);
  return { ...diff, ...store, ...load, ...files, ...pairs };
}

/** What the storage-backed commands (`config`, `watermark`) need from their surroundings. */
export interface StorageCommandDeps {
  /** Default: `readSettings()` from the environment. */
  settings: () => Settings;
  /** Default: `openTableStorage(settings)` (connection string, identity endpoint, or local Azurite). */
  openStorage: (settings: Settings, notice: (line: string) => void) => Promise<TableStorage>;
  /** Results (stdout). Default: `console.log`. */
  print: (line: string) => void;
  /** Notices such as "started Azurite …" (stderr). Default: `console.error`. */
  notice: (line: string) => void;
}

export const defaultStorageCommandDeps: StorageCommandDeps = {
  settings: () => readSettings(),
  openStorage: async (settings, notice) => (await import('../../storage/table-client-factory')).openTableStorage(settings, { log: notice }),
  print: (line) => console.log(terminalText(line)),
  notice: (line) => console.error(terminalText(line)),
};

/** Opens storage as the settings say, runs `fn`, and always closes it (stopping an Azurite it started). */
export async function withStorage<T>(deps: StorageCommandDeps, fn: (storage: TableStorage) => Promise<T>): Promise<T> {
  const storage = await deps.openStorage(deps.settings(), deps.notice);
  try {
    return await fn(storage);
  } finally {
    await storage.close();
  }
}

export interface ConfigCommandDeps extends StorageCommandDeps {
  /** Connector validators for `validateConfig`. Default none (any connection type accepted). */
  validateOptions: ValidateOptions;
}

/** Config folder used when `--config` is not given. */
const DEFAULT_CONFIG_DIR = 'config';

// The connectors' own settings checks run too: what `validate` passes, the host can start on.
// They are zod schemas, loaded when a command reads them (not at every CLI start, as above).
const defaultDeps: ConfigCommandDeps = {
  ...defaultStorageCommandDeps,
  get validateOptions(): ValidateOptions {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: a getter
    const { defaultConnectorRegistry } = require('../../../connectors/default-registry') as typeof import('../../../connectors/default-registry');
    return { connectionTypes: defaultConnectorRegistry().connectionTypes() };
  },
};

/** What `config validate --json` prints. */
interface ValidationReport {
  folder: string;
  valid: boolean;
  /**
   * Items per kind as written (a pair's jobs and mappings not counted); absent when not valid.
   * `pairs` only when the folder has some.
   */
  counts?: Record<'connections' | 'mappings' | 'jobs', number> & { pairs?: number };
  /** Why the folder is not valid (each names its file, path and entry). */
  issues: ConfigIssue[];
  /** Valid, yet it will not run as it is: a file a connection names is missing. */
  warnings: ConfigIssue[];
}

async function validateFolder(dir: string, validateOptions: ValidateOptions): Promise<{ report: ValidationReport; config?: HighwaterConfig; error?: ConfigValidationError }> {
  const modules = await configModules();
  let config: HighwaterConfig;
  try {
    config = await modules.loadConfigFolder(dir, validateOptions);
  } catch (err) {
    if (!(err instanceof ConfigValidationError)) throw err;
    return { report: { folder: dir, valid: false, issues: err.issues, warnings: [] }, error: err };
  }
  const { files } = await modules.findConfigFiles(dir, ['connections', 'jobs', 'pairs']);
  const file = files.connections ?? 'connections';
  const warnings: ConfigIssue[] = missingFiles(config, dir).map((f) => ({
    file,
    path: `connections[${f.index}].settings.${f.setting}`,
    message: `no file at ${f.resolved}: the connection cannot open it (a ${config.connections[f.index].type} connection opens an existing file only)`,
    entry: f.connection,
  }));
  const own = modules.withoutExpansion(config);
  warnings.push(...(await scheduleWarnings(own, files)));
  const itemCounts = { connections: own.connections.length, mappings: own.mappings.length, jobs: own.jobs.length, ...(own.pairs.length > 0 ? { pairs: own.pairs.length } : {}) };
  return { report: { folder: dir, valid: true, counts: itemCounts, issues: [], warnings }, config };
}

/** Enabled jobs and pairs due more often than the environment's GetChangesSchedule (none when that setting is invalid: the host reports it). */
async function scheduleWarnings(own: Pick<HighwaterConfig, 'jobs' | 'pairs'>, files: { jobs?: string; pairs?: string }): Promise<ConfigIssue[]> {
  const [{ finerThanLookWarnings }, { APP_SETTINGS }, { readSetting }] = await Promise.all([
    import('../../config/schedule-warnings'),
    import('../../platform/app-settings'),
    import('../../platform/setting-spec'),
  ]);
  let look: string;
  try {
    look = readSetting(process.env, APP_SETTINGS.getChangesSchedule);
  } catch {
    return [];
  }
  const entries = [
    ...own.jobs.flatMap((job, i) => (job.enabled ? [{ file: files.jobs ?? 'jobs', path: `jobs[${i}].schedule`, name: job.name, schedule: job.schedule }] : [])),
    ...own.pairs.flatMap((pair, i) => (pair.enabled ? [{ file: files.pairs ?? 'pairs', path: `pairs[${i}].schedule`, name: pair.name, schedule: pair.schedule }] : [])),
  ];
  return finerThanLookWarnings(entries, look);
}

/** Items as written: a pair counts as a pair, not as the jobs and mappings it expands into. */
async function counts(config: HighwaterConfig): Promise<string> {
  const own = (await configModules()).withoutExpansion(config);
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  const pairs = own.pairs.length > 0 ? `, ${n(own.pairs.length, 'pair')}` : '';
  return `${n(own.connections.length, 'connection')}, ${n(own.mappings.length, 'mapping')}, ${n(own.jobs.length, 'job')}${pairs}`;
}

async function printDiff(deps: ConfigCommandDeps, diff: ConfigDiff, json: boolean | undefined): Promise<void> {
  if (json) deps.print(JSON.stringify(diff, null, 2));
  else for (const line of (await configModules()).formatDiff(diff)) deps.print(line);
}

/**
 * `highwater config validate|diff|push|pull [--config DIR]`: the config folder against the
 * schema, and against the tables `connections`, `mappings`, `jobs` (storage from the settings,
 * or the local Azurite).
 */
export function registerConfigCommands(program: Command, deps: ConfigCommandDeps = defaultDeps): void {
  const config = program.command('config').description('validate a config folder and sync it with the configuration tables');
  const dirOption = ['--config <dir>', 'config folder (connections, mappings, jobs and optional pairs as .yaml/.yml/.json)', DEFAULT_CONFIG_DIR] as const;
  const load = async (dir: string) => (await configModules()).loadConfigFolder(dir, deps.validateOptions);
  // What push and diff compare and store: file paths resolved against the folder (config-file-paths.ts).
  const loadForTables = async (dir: string) => resolveFilePaths(await load(dir), dir);
  const openStore = async (storage: TableStorage) => new (await configModules()).ConfigStore(storage, deps.validateOptions);

  config
    .command('validate')
    .description('check the config folder against the schema (no storage needed); warns about files it names that do not exist')
    .option(...dirOption)
    .option('--json', 'print { folder, valid, counts, issues, warnings } as JSON (exit 1 when not valid)')
    .option('--connect', 'also open every connection and check what the config names there (as `highwater check`)')
    .action(async (options: { config: string; json?: boolean; connect?: boolean }) => {
      if (options.connect) return (await import('./check')).runCheck(options.config, options.json, (await import('./check')).defaultCheckDeps);
      const { report, config: loaded, error } = await validateFolder(options.config, deps.validateOptions);
      if (options.json) {
        deps.print(JSON.stringify(report, null, 2));
        if (!report.valid) throw new ReportedFailure(1);
        return;
      }
      if (error || !loaded) throw error;
      deps.print(`${options.config}: valid (${await counts(loaded)})`);
      for (const warning of report.warnings) deps.notice(`warning: ${formatIssueNamed(warning)}`);
    });

  config
    .command('diff')
    .description('show what push would add, change and remove in the tables')
    .option(...dirOption)
    .option('--json', 'print JSON')
    .action(async (options: { config: string; json?: boolean }) => {
      const loaded = await loadForTables(options.config);
      const diff = await withStorage(deps, async (storage) => (await openStore(storage)).diff(loaded));
      await printDiff(deps, diff, options.json);
    });

  config
    .command('push')
    .description('make the tables hold exactly the config folder (nothing is written if it does not validate)')
    .option(...dirOption)
    .option('--json', 'print the applied changes as JSON')
    .action(async (options: { config: string; json?: boolean }) => {
      const loaded = await loadForTables(options.config);
      await withStorage(deps, async (storage) => {
        const diff = await (await openStore(storage)).push(loaded);
        if (options.json) return printDiff(deps, diff, true);
        if ((await configModules()).isEmptyDiff(diff)) return deps.print(`nothing to push: ${storage.description} already matches ${options.config}`);
        deps.print(`pushed ${options.config} to ${storage.description}:`);
        await printDiff(deps, diff, false);
      });
    });

  config
    .command('pull')
    .description('write the configuration stored in the tables into the config folder (file paths rewritten to name the same files from there)')
    .option(...dirOption)
    .action(async (options: { config: string }) => {
      const pulled = rebaseFilePaths(await withStorage(deps, async (storage) => (await openStore(storage)).pull()), options.config);
      const written = await (await configModules()).writeConfigFolder(options.config, pulled);
      deps.print(`wrote ${written.map((file) => path.relative(process.cwd(), file) || file).join(', ')} (${await counts(pulled)})`);
    });
}
