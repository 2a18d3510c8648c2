import { ConfigError } from '../platform/errors';
import type { EntityProperties, EntityValue } from './table-store';

/** Most UTF-16 characters in one string property (64 KiB). */
export const MAX_PROPERTY_CHARS = 32 * 1024;
/** Largest entity Table Storage accepts, in its own size accounting. */
export const MAX_ENTITY_BYTES = 1024 * 1024;

export interface JsonPropertiesOptions {
  /** Property name prefix: parts are `<prefix>_0..N-1`, their count `<prefix>Parts`. Default `Definition`. */
  prefix?: string;
  /** Characters per part; at most {@link MAX_PROPERTY_CHARS}. Default 32,000. */
  partChars?: number;
}

const DEFAULT_PREFIX = 'Definition';
const DEFAULT_PART_CHARS = 32_000;

/**
 * JSON text with every non-ASCII character written as a `\uXXXX` escape. Azurite 3.35 decodes
 * each ~64 KiB chunk of a request body separately, so a multi-byte UTF-8 character that straddles
 * a chunk boundary arrives as U+FFFD; ASCII text cannot be split that way. It also means a part
 * boundary can never fall between the halves of a surrogate pair.
 */
function asciiJson(value: unknown): string | undefined {
  const json = JSON.stringify(value);
  return json?.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function splitText(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts.length > 0 ? parts : [''];
}

/**
 * Encodes a JSON value as string properties `<prefix>_0..N-1` plus `<prefix>Parts` = N, so that a
 * definition larger than one property's 64 KiB limit still fits one entity. The JSON is
 * ASCII-only (non-ASCII characters escaped), so a part holds at most `partChars` characters.
 * Does not check the entity's total size: see {@link assertEntityFits}.
 */
export function encodeJsonProperties(value: unknown, options: JsonPropertiesOptions = {}): EntityProperties {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const partChars = options.partChars ?? DEFAULT_PART_CHARS;
  if (!Number.isInteger(partChars) || partChars < 1 || partChars > MAX_PROPERTY_CHARS) {
    throw new RangeError(`partChars must be an integer from 1 to ${MAX_PROPERTY_CHARS}, got ${partChars}`);
  }
  const json = asciiJson(value);
  if (json === undefined) throw new TypeError('value is not representable as JSON');
  const parts = splitText(json, partChars);
  const properties: EntityProperties = { [`${prefix}Parts`]: parts.length };
  parts.forEach((part, i) => (properties[`${prefix}_${i}`] = part));
  return properties;
}

/**
 * Reassembles and parses what {@link encodeJsonProperties} wrote.
 * @param item names the entity in errors, e.g. `mapping "orders"`.
 * @throws ConfigError when parts are missing or the JSON does not parse.
 */
export function decodeJsonProperties(item: string, properties: EntityProperties, options: JsonPropertiesOptions = {}): unknown {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const count = properties[`${prefix}Parts`];
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new ConfigError(`${item}: stored entity has no valid ${prefix}Parts property`);
  }
  let json = '';
  for (let i = 0; i < count; i++) {
    const part = properties[`${prefix}_${i}`];
    if (typeof part !== 'string') throw new ConfigError(`${item}: stored entity is missing ${prefix}_${i} of ${count} parts`);
    json += part;
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (err) {
    throw new ConfigError(`${item}: stored ${prefix} is not valid JSON (${(err as Error).message})`);
  }
}

function valueBytes(value: EntityValue): number {
  if (value === null) return 0;
  if (typeof value === 'string') return 4 + value.length * 2;
  if (typeof value === 'boolean') return 1;
  // Numbers are sent as Int32 when integral, else Double; the larger size keeps the bound safe.
  return 8;
}

/**
 * An entity's size as Table Storage counts it: 4 + 2·len(PartitionKey + RowKey) plus, per
 * property, 8 + 2·len(name) + the value's size (string: 4 + 2·len; DateTime/Double: 8; bool: 1).
 */
export function entitySizeBytes(partitionKey: string, rowKey: string, properties: EntityProperties): number {
  let size = 4 + (partitionKey.length + rowKey.length) * 2;
  for (const [name, value] of Object.entries(properties)) {
    if (value === null) continue;
    size += 8 + name.length * 2 + valueBytes(value);
  }
  return size;
}

/**
 * Throws a ConfigError naming the item when the entity would exceed {@link MAX_ENTITY_BYTES}.
 * @param item names the entity, e.g. `mapping "orders"`.
 */
export function assertEntityFits(item: string, partitionKey: string, rowKey: string, properties: EntityProperties): void {
  const size = entitySizeBytes(partitionKey, rowKey, properties);
  if (size > MAX_ENTITY_BYTES) {
    throw new ConfigError(
      `${item} is too large to store: ${size} bytes, over the Table Storage limit of ${MAX_ENTITY_BYTES} bytes (1 MiB) per entity`,
    );
  }
}
