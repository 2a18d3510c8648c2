import { PermanentError } from '../../src/model/errors';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { OdataHttpClient } from './odata-http';
import { identifier, keySegment, literal, queryString } from './odata-literals';
import { rowsOf } from './source-rows';

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

  entitySet(mapping: Mapping): string {
    return identifier(mapping.target.entity, `mapping "${mapping.name}": target.entity`);
  }

  /** The mapped target key of a message. @throws PermanentError when a key value is missing. */
  targetKey(message: QueueMessage, mapping: Mapping): Array<[string, JsonValue]> {
    return mapping.target.key.map((key) => {
      const value = message.targetKey[key] ?? message.fields[key];
      if (value === undefined || value === null) throw new PermanentError(`message has no value for target key field "${key}"`);
      return [identifier(key, `mapping "${mapping.name}": target.key`), value];
    });
  }

  /** The entity key properties of the target entity set. */
  entityKey(mapping: Mapping): string[] {
    const set = this.entitySet(mapping);
    return this.options.entityKeys?.[set] ?? this.options.defaultEntityKey ?? mapping.target.key;
  }

  /** The record's path from the message's key, without reading (target key = entity key, or alternate-key addressing). */
  directPath(message: QueueMessage, mapping: Mapping): string {
    const keys = this.targetKey(message, mapping);
    return `${this.entitySet(mapping)}${this.segment(keys, `mapping "${mapping.name}": target.key`)}`;
  }

  /**
   * The one record whose mapped key matches the message, with `select` properties; undefined
   * when there is none.
   * @throws PermanentError when several records match.
   */
  async find(message: QueueMessage, mapping: Mapping, select: readonly string[] = []): Promise<FoundRecord | undefined> {
    const set = this.entitySet(mapping);
    const keys = this.targetKey(message, mapping);
    const entityKey = this.entityKey(mapping).map((k) => identifier(k, `entity key of ${set}`));
    const filter = keys.map(([name, value]) => `${name} eq ${literal(value, `target key "${name}"`)}`).join(' and ');
    const fields = [...new Set([...entityKey, ...select.map((f) => identifier(f, `field of ${set}`))])];
    const response = await this.options.http.request({
      method: 'GET',
      url: `${set}${queryString([['$filter', filter], ['$select', fields.join(',')], ['$top', '2']])}`,
      operation: `find ${set} by ${keys.map(([k]) => k).join(', ')}`,
    });
    const rows = rowsOf(response, `find ${set}`);
    if (rows.length === 0) return undefined;
    if (rows.length > 1) throw new PermanentError(`${set}: several records match ${filter}; the target key must be unique`);
    const [row] = rows;
    const missing = entityKey.filter((k) => row[k] === undefined || row[k] === null);
    if (missing.length > 0) throw new PermanentError(`${set}: the found record has no value for its key ${missing.join(', ')}`);
    const path = `${set}${this.segment(entityKey.map((k) => [k, row[k]] as [string, unknown]), `entity key of ${set}`)}`;
    const etag = row['@odata.etag'];
    return { path, etag: typeof etag === 'string' ? etag : undefined, row };
  }

  private segment(keys: Array<[string, unknown]>, what: string): string {
    const bare = keys.length === 1 && (this.options.bareSingleKey?.(keys[0][0], keys[0][1]) ?? false);
    return keySegment(keys, bare, what);
  }
}
