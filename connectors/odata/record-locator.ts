import { PermanentError } from '../../src/platform/errors';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { OdataHttpClient } from './odata-http';
import { identifier, keySegment, literal, queryString } from './odata-literals';
import { rowsOf } from './source-rows';
import { typedValue } from './typed-values';

export interface LocatorOptions {
  http: OdataHttpClient;
  /** Entity set → its key properties, where the mapping's target key is an alternate key. */
  entityKeys?: Record<string, string[]>;
  /** Key properties of every other entity set (Business Central: `id`). Default: the mapping's target key. */
  defaultEntityKey?: string[];
  /** Whether a single key is written bare (`Set(7)`) rather than named (`Set(ID=7)`). Default: never. */
  bareSingleKey?: (name: string, value: unknown) => boolean;
}

/** A target record found by its mapped key. */
export interface FoundRecord {
  /** Its path, e.g. `customers(3f1c…)`. */
  path: string;
  /** Its `@odata.etag`, for `If-Match`. */
  etag?: string;
  row: Record<string, unknown>;
}

/**
 * Finds target records: by `$filter` on the mapping's target key, then addressed at their
 * entity key, or — when the target key is the entity key — addressed directly.
 */
export class RecordLocator {
  constructor(private readonly options: LocatorOptions) {}

  /**
   * The target entity set and the message's values of the mapping's target key.
   * @param types the set's property types (`$metadata`): key values typed by them (`Edm.Int64`
   * digits bare in URLs); none: as the message carries them.
   */
  target(message: QueueMessage, mapping: Mapping, types?: ReadonlyMap<string, string>): TargetRef {
    const set = identifier(mapping.target.entity, `mapping "${mapping.name}": target.entity`);
    const keys = keyValues(message, mapping.target.key, `mapping "${mapping.name}": target.key`);
    if (!types) return { set, keys };
    const typed = keys.map(([name, value]) => [name, typedValue(value, types.get(name), `target key "${name}" of ${set}`) as JsonValue] as [string, JsonValue]);
    return { set, keys: typed, types };
  }

  /** The entity key properties of an entity set whose records are found by `targetKey`. */
  entityKey(target: TargetRef): string[] {
    return this.options.entityKeys?.[target.set] ?? this.options.defaultEntityKey ?? target.keys.map(([k]) => k);
  }

  /** The record's path from the target key, without reading (target key = entity key, or alternate-key addressing). */
  directPath(target: TargetRef): string {
    return `${target.set}${this.segment(target.keys, `key of ${target.set}`)}`;
  }

  /**
   * The one record whose target key matches, with `select` properties; undefined when there is none.
   * @throws PermanentError when several records match.
   */
  async find(target: TargetRef, select: readonly string[] = []): Promise<FoundRecord | undefined> {
    const response = await this.options.http.request({
      method: 'GET',
      url: this.findUrl(target, select),
      operation: `find ${target.set} by ${target.keys.map(([k]) => k).join(', ')}`,
    });
    return this.foundIn(target, rowsOf(response, `find ${target.set}`));
  }

  /** The query {@link find} sends: `$filter` on the target key, the entity key and `select` properties, `$top=2`. */
  findUrl(target: TargetRef, select: readonly string[] = []): string {
    const { set, keys } = target;
    const entityKey = this.entityKey(target).map((k) => identifier(k, `entity key of ${set}`));
    const fields = [...new Set([...entityKey, ...select.map((f) => identifier(f, `field of ${set}`))])];
    return `${set}${queryString([['$filter', filterOf(keys)], ['$select', fields.join(',')], ['$top', '2']])}`;
  }

  /**
   * The record among the rows a {@link findUrl} query answered; undefined when there is none.
   * @throws PermanentError when several records match.
   */
  foundIn(target: TargetRef, rows: ReadonlyArray<Record<string, unknown>>): FoundRecord | undefined {
    const { set, keys } = target;
    if (rows.length === 0) return undefined;
    if (rows.length > 1) throw new PermanentError(`${set}: several records match ${filterOf(keys)}; the target key must be unique`);
    const [row] = rows;
    const entityKey = this.entityKey(target).map((k) => identifier(k, `entity key of ${set}`));
    const missing = entityKey.filter((k) => row[k] === undefined || row[k] === null);
    if (missing.length > 0) throw new PermanentError(`${set}: the found record has no value for its key ${missing.join(', ')}`);
    // Typed: a service under IEEE754Compatible answers an Edm.Int64 key as a string.
    const key = entityKey.map((k) => [k, typedValue(row[k], target.types?.get(k), `key "${k}" of ${set}`)] as [string, unknown]);
    const path = `${set}${this.segment(key, `entity key of ${set}`)}`;
    const etag = row['@odata.etag'];
    return { path, etag: typeof etag === 'string' ? etag : undefined, row };
  }

  private segment(keys: ReadonlyArray<readonly [string, unknown]>, what: string): string {
    const bare = keys.length === 1 && (this.options.bareSingleKey?.(keys[0][0], keys[0][1]) ?? false);
    return keySegment(keys, bare, what);
  }
}

function filterOf(keys: ReadonlyArray<readonly [string, JsonValue]>): string {
  return keys.map(([name, value]) => `${name} eq ${literal(value, `target key "${name}"`)}`).join(' and ');
}

/** An entity set and the key values naming one of its records. */
export interface TargetRef {
  set: string;
  /** Values as the message carries them, or typed (an `ExactNumber` for a long `Edm.Int64`) when `types` is given. */
  keys: Array<[string, JsonValue]>;
  /** The set's property types, when the service's `$metadata` was read. */
  types?: ReadonlyMap<string, string>;
}

/**
 * The message's values of `names` (from its target key, else its fields).
 * @throws PermanentError when one is missing.
 */
export function keyValues(message: QueueMessage, names: readonly string[], what: string): Array<[string, JsonValue]> {
  return names.map((key) => {
    const value = message.targetKey[key] ?? message.fields[key];
    if (value === undefined || value === null) throw new PermanentError(`message has no value for target key field "${key}"`);
    return [identifier(key, what), value];
  });
}
