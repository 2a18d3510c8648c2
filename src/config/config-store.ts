import { readdir, writeFile } from 'node:fs/promises';
import { ensureFolder } from '../platform/data-folder';
import path from 'node:path';
import { stringify } from 'yaml';
import type { HighwaterConfig } from '../model/config';
import { assertEntityFits, decodeJsonProperties, encodeJsonProperties } from '../storage/entity-codec';
import { assertTableKey } from '../storage/table-key';
import type { TableBatchAction, TableStorage } from '../storage/table-store';
import { diffConfig, type ConfigDiff, type StoredItem } from './config-diff';
import { ConfigValidationError } from '../platform/config-issue';
import { withoutExpansion } from './pair-expansion';
import { CONFIG_KINDS, OPTIONAL_CONFIG_KINDS, type ConfigKind } from './schema';
import { validateConfig, type ValidateOptions } from './validate-config';

/** Table per kind (the spec's names); one entity per item, row key = item name. */
export const CONFIG_TABLES: Record<ConfigKind, string> = { connections: 'connections', mappings: 'mappings', jobs: 'jobs', pairs: 'pairs' };
/** The one partition of the config tables. */
export const CONFIG_PARTITION = 'config';

/** Configuration as stored, not yet validated. */
export interface RawConfig {
  connections: unknown[];
  mappings: unknown[];
  jobs: unknown[];
  /** Absent: none. */
  pairs?: unknown[];
}

const ITEM_LABEL: Record<ConfigKind, string> = { connections: 'connection', mappings: 'mapping', jobs: 'job', pairs: 'pair' };

/**
 * The configuration tables `connections`, `mappings`, `jobs`, `pairs`. Each item's validated
 * definition (defaults filled) is stored as JSON in `Definition_0..N` (see `entity-codec.ts`).
 * A pair is stored as the pair: the jobs and mappings it expands into are made again by each
 * validation, never stored.
 */
export class ConfigStore {
  constructor(
    private readonly storage: TableStorage,
    private readonly validateOptions: ValidateOptions = {},
  ) {}

  /** Creates the tables if missing. */
  async ensureTables(): Promise<void> {
    for (const kind of CONFIG_KINDS) await this.storage.table(CONFIG_TABLES[kind]);
  }

  /** The stored items of one kind, ordered by name. */
  async readItems(kind: ConfigKind): Promise<StoredItem[]> {
    const table = await this.storage.table(CONFIG_TABLES[kind]);
    const rows = await table.queryPartition(CONFIG_PARTITION);
    return rows.map((row) => ({
      name: row.rowKey,
      definition: decodeJsonProperties(`${ITEM_LABEL[kind]} ${JSON.stringify(row.rowKey)}`, row.properties),
    }));
  }

  /**
   * Validates stored lists. Issues name the row instead of a list index (`jobs["nightly"].schedule`
   * rather than `jobs[3].schedule`): in a table, the name is what a reader can find.
   * @param names per kind, the row key of each entry of `raw`.
   */
  static validateStored(raw: RawConfig, names: Partial<Record<ConfigKind, string[]>>, options: ValidateOptions = {}): HighwaterConfig {
    try {
      return validateConfig(raw, options);
    } catch (err) {
      if (!(err instanceof ConfigValidationError)) throw err;
      const named = err.issues.map((issue) => ({
        ...issue,
        path: issue.path.replace(/^(connections|mappings|jobs|pairs)\[(\d+)\]/, (whole, kind: ConfigKind, index: string) => {
          const name = names[kind]?.[Number(index)];
          return name === undefined ? whole : `${kind}[${JSON.stringify(name)}]`;
        }),
      }));
      throw new ConfigValidationError(named);
    }
  }

  /** One kind's stored definitions, unvalidated. */
  async readKind(kind: ConfigKind): Promise<unknown[]> {
    return (await this.readItems(kind)).map((item) => item.definition);
  }

  /** Everything stored, unvalidated (read in the order connections, mappings, jobs, pairs). */
  async read(): Promise<RawConfig> {
    return { connections: await this.readKind('connections'), mappings: await this.readKind('mappings'), jobs: await this.readKind('jobs'), pairs: await this.readKind('pairs') };
  }

  /** What {@link push} would change. */
  async diff(config: HighwaterConfig): Promise<ConfigDiff> {
    return diffConfig(await this.readAllItems(), config);
  }

  /**
   * Makes the tables hold exactly `config`: upserts added and changed items, deletes removed ones.
   * Idempotent: a second push of the same config writes nothing. Validates first and checks every
   * entity's size before writing, so that an invalid or oversized config writes nothing.
   * @returns what was changed.
   * @throws ConfigValidationError when `config` does not validate; ConfigError when an item is too large.
   */
  async push(config: HighwaterConfig): Promise<ConfigDiff> {
    // The pairs' jobs and mappings are made again by validation; only the pairs are stored.
    const valid = validateConfig(withoutExpansion(config), this.validateOptions);
    const own = withoutExpansion(valid);
    const rows = new Map<ConfigKind, Map<string, TableBatchAction>>();
    for (const kind of CONFIG_KINDS) {
      const byName = new Map<string, TableBatchAction>();
      for (const item of own[kind]) {
        const label = `${ITEM_LABEL[kind]} ${JSON.stringify(item.name)}`;
        assertTableKey(ITEM_LABEL[kind], item.name);
        const properties = encodeJsonProperties(item);
        assertEntityFits(label, CONFIG_PARTITION, item.name, properties);
        byName.set(item.name, { kind: 'upsert', row: { partitionKey: CONFIG_PARTITION, rowKey: item.name, properties } });
      }
      rows.set(kind, byName);
    }
    const diff = await this.diff(valid);
    // Referenced items first: a reader between two writes sees new connections before the jobs using them.
    for (const kind of CONFIG_KINDS) {
      const table = diff[kind];
      if (!table) continue;
      const upserts = [...table.added, ...table.changed.map((c) => c.name)].map((name) => rows.get(kind)!.get(name)!);
      if (upserts.length > 0) await (await this.storage.table(CONFIG_TABLES[kind])).submitBatch(upserts);
    }
    for (const kind of [...CONFIG_KINDS].reverse()) {
      const deletes: TableBatchAction[] = (diff[kind]?.removed ?? []).map((rowKey) => ({ kind: 'delete', partitionKey: CONFIG_PARTITION, rowKey }));
      if (deletes.length > 0) await (await this.storage.table(CONFIG_TABLES[kind])).submitBatch(deletes);
    }
    return diff;
  }

  /**
   * The stored configuration, validated; items ordered by name (row key order).
   * @throws ConfigValidationError naming the table (`connections`, …) and property path.
   */
  async pull(): Promise<HighwaterConfig> {
    const items = await this.readAllItems();
    const raw = { connections: items.connections.map((i) => i.definition), mappings: items.mappings.map((i) => i.definition), jobs: items.jobs.map((i) => i.definition), pairs: items.pairs.map((i) => i.definition) };
    const names = { connections: items.connections.map((i) => i.name), mappings: items.mappings.map((i) => i.name), jobs: items.jobs.map((i) => i.name), pairs: items.pairs.map((i) => i.name) };
    return ConfigStore.validateStored(raw, names, this.validateOptions);
  }

  private async readAllItems(): Promise<Record<ConfigKind, StoredItem[]>> {
    return { connections: await this.readItems('connections'), mappings: await this.readItems('mappings'), jobs: await this.readItems('jobs'), pairs: await this.readItems('pairs') };
  }
}

/**
 * Writes `config` into `dir` as one file per kind (`{ <kind>: [...] }`, the config folder
 * format), items in the given order ({@link ConfigStore.pull} returns them ordered by name).
 * Reuses an existing file's name and format (`.json`, `.yaml`, `.yml`) so the folder never
 * holds two files of a kind; new files are `<kind>.yaml`. Creates `dir` if missing. Pairs are
 * written as pairs (not their jobs and mappings), and only when there are some or a pairs file
 * was there.
 * @returns the paths written.
 */
export async function writeConfigFolder(dir: string, config: HighwaterConfig): Promise<string[]> {
  ensureFolder(dir); // "not a folder" / "cannot create", never a spin under /proc
  const existing = new Set(await readdir(dir));
  const own = withoutExpansion(config);
  const written: string[] = [];
  for (const kind of CONFIG_KINDS) {
    const found = ['.yaml', '.yml', '.json'].map((ext) => `${kind}${ext}`).find((name) => existing.has(name));
    // An optional kind gets a file when it has items, or had a file (now emptied).
    if (found === undefined && OPTIONAL_CONFIG_KINDS.has(kind) && own[kind].length === 0) continue;
    const file = found ?? `${kind}.yaml`;
    const content = { [kind]: own[kind] };
    const text = file.endsWith('.json') ? `${JSON.stringify(content, null, 2)}\n` : stringify(content, { lineWidth: 0 });
    const target = path.join(dir, file);
    await writeFile(target, text, 'utf8');
    written.push(target);
  }
  return written;
}
