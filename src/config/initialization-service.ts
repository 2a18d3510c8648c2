import type { HighwaterConfig } from '../model/config';
import type { Connection } from '../model/connection';
import { ConfigError } from '../platform/errors';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { WATERMARK_TABLE } from '../model/watermark-record';
import type { TableStorage } from '../storage/table-store';
import { CONFIG_TABLES, ConfigStore } from './config-store';
import { loadConfigFolder } from './load-config';
import type { StoredItem } from './config-diff';
import type { ValidateOptions } from './validate-config';

/** Steps in the order they run; `files` replaces the three table reads in `files` mode. */
export type InitializationStep = 'storage' | 'connections' | 'mappings' | 'jobs' | 'files';

export type InitializationOptions = {
  /** Table storage. `tables` mode reads from it; in `files` mode it is optional, and when given
   * its tables (config and `watermark`) are created in the storage step all the same. */
  storage?: TableStorage;
  /** Connector validators etc. for `validateConfig` / `loadConfigFolder`. Default none. */
  validateOptions?: ValidateOptions;
  /** Called as each step starts (for logs). Default none. */
  onStep?: (step: InitializationStep) => void;
} & (
  // Where configuration comes from: `tables` (production, any host with `AzureWebJobsStorage`),
  // the tables filled by `highwater config push`; `files`, a config folder read directly.
  { source?: 'tables'; storage: TableStorage } | { source: 'files'; configDir: string }
);

/**
 * Loads configuration once per process: Storage (tables created if missing) → Connections →
 * Mappings → Jobs, validated together; fails fast with a {@link ConfigError} listing every issue.
 *
 * Keep one instance per process. Concurrent callers of {@link ensureInitialized} share one
 * attempt; a failed attempt is not kept, so the next call tries again (e.g. once storage is up
 * or the configuration was fixed). A successful load is kept for the life of the instance.
 */
export class InitializationService {
  private pending?: Promise<HighwaterConfig>;
  private loaded?: HighwaterConfig;
  private jobs = new Map<string, Job>();
  private mappings = new Map<string, Mapping>();
  private connections = new Map<string, Connection>();

  constructor(private readonly options: InitializationOptions) {}

  /** Loads on first call; later calls resolve with the same configuration. */
  ensureInitialized(): Promise<HighwaterConfig> {
    if (this.loaded) return Promise.resolve(this.loaded);
    if (!this.pending) {
      this.pending = this.load().then(
        (config) => {
          this.index(config);
          return config;
        },
        (err: unknown) => {
          this.pending = undefined;
          throw err;
        },
      );
    }
    return this.pending;
  }

  get isInitialized(): boolean {
    return this.loaded !== undefined;
  }

  /** The loaded configuration. @throws ConfigError before {@link ensureInitialized} succeeded. */
  get config(): HighwaterConfig {
    if (!this.loaded) throw new ConfigError('configuration not loaded yet: call ensureInitialized() first');
    return this.loaded;
  }

  /** @throws ConfigError when no job has this name. */
  getJob(name: string): Job {
    return this.lookup(this.jobs, 'job', name);
  }

  /** @throws ConfigError when no mapping has this name. */
  getMapping(name: string): Mapping {
    return this.lookup(this.mappings, 'mapping', name);
  }

  /** @throws ConfigError when no connection has this name. */
  getConnection(name: string): Connection {
    return this.lookup(this.connections, 'connection', name);
  }

  /** The job, or undefined when there is none of this name (e.g. a message for a removed job). */
  findJob(name: string): Job | undefined {
    void this.config;
    return this.jobs.get(name);
  }

  private lookup<T>(items: Map<string, T>, what: string, name: string): T {
    void this.config;
    const item = items.get(name);
    if (item === undefined) throw new ConfigError(`unknown ${what} "${name}"`);
    return item;
  }

  private index(config: HighwaterConfig): void {
    this.jobs = new Map(config.jobs.map((job) => [job.name, job]));
    this.mappings = new Map(config.mappings.map((mapping) => [mapping.name, mapping]));
    this.connections = new Map(config.connections.map((connection) => [connection.name, connection]));
    this.loaded = config;
  }

  private async load(): Promise<HighwaterConfig> {
    const { onStep, validateOptions = {}, storage } = this.options;
    onStep?.('storage');
    if (storage) {
      for (const table of [...Object.values(CONFIG_TABLES), WATERMARK_TABLE]) await storage.table(table);
    }
    if (this.options.source === 'files') {
      onStep?.('files');
      return loadConfigFolder(this.options.configDir, validateOptions);
    }
    const store = new ConfigStore(this.options.storage, validateOptions);
    onStep?.('connections');
    const connections = await store.readItems('connections');
    onStep?.('mappings');
    const mappings = await store.readItems('mappings');
    onStep?.('jobs');
    const jobs = await store.readItems('jobs');
    // Part of the jobs step: a pair is read as the two jobs it expands into.
    const pairs = await store.readItems('pairs');
    const definitions = (items: StoredItem[]) => items.map((item) => item.definition);
    const names = (items: StoredItem[]) => items.map((item) => item.name);
    return ConfigStore.validateStored(
      { connections: definitions(connections), mappings: definitions(mappings), jobs: definitions(jobs), pairs: definitions(pairs) },
      { connections: names(connections), mappings: names(mappings), jobs: names(jobs), pairs: names(pairs) },
      validateOptions,
    );
  }
}
