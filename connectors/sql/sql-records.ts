import { toJsonValue } from '../base/connector-base';
import { ConfigError, PermanentError } from '../../src/platform/errors';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { SqlDialect, SqlRow } from './dialect';

/**
 * `{ ...targetKey, ...fields }`, built by assignment: V8 runs that spread (a clone of the small
 * key object, then the fields added to it) about 30 times slower than these loops, ~6 µs a
 * message. A `__proto__` key, which assignment would treat as the prototype, takes the spread.
 */
export function mergeRecord(targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue>): Record<string, JsonValue> {
  const record: Record<string, JsonValue> = {};
  for (const source of [targetKey, fields]) {
    const names = Object.keys(source ?? {}); // a missing part adds nothing, as in the spread
    for (let i = 0; i < names.length; i++) {
      if (names[i] === '__proto__') return { ...targetKey, ...fields };
      record[names[i]] = source[names[i]];
    }
  }
  return record;
}

/** The record's values of `fields`, in order, as the driver binds them. */
export function bindFields(dialect: SqlDialect, fields: readonly string[], record: Record<string, JsonValue>): unknown[] {
  const values = new Array<unknown>(fields.length);
  for (let i = 0; i < fields.length; i++) values[i] = dialect.bindValue(record[fields[i]]);
  return values;
}

/** A mapping-level version column (`mapping.target.versionField`), when the configuration has one. */
function versionFieldOf(mapping: Mapping): string | undefined {
  const { target } = mapping;
  return 'versionField' in target && typeof target.versionField === 'string' ? target.versionField : undefined;
}

/**
 * The version column of a mapping: `target.versionField`, else the connection's `versionField`.
 * @throws ConfigError when neither is set (skipOutdatedMessages cannot work without it).
 */
export function versionColumnOf(mapping: Mapping, connectionName: string, connectionVersionField: string | undefined): string {
  const field = versionFieldOf(mapping) ?? connectionVersionField;
  if (!field) {
    throw new ConfigError(`connection "${connectionName}": skipOutdatedMessages needs the target's version column: set settings.versionField`);
  }
  return field;
}

/** The `returning` fields of a written row as JSON values; undefined when none were asked for. */
export function returnedFields(row: SqlRow | undefined, returning: readonly string[]): Record<string, JsonValue> | undefined {
  if (returning.length === 0) return undefined;
  const returned: Record<string, JsonValue> = {};
  for (const field of returning) returned[field] = toJsonValue(row?.[field], `returned field "${field}"`);
  return returned;
}

/**
 * The message's record (target key and fields merged) for a batch write.
 * @throws PermanentError when a target key field has no value (null or missing): that item only.
 */
export function batchRecord(message: QueueMessage, mapping: Mapping): Record<string, JsonValue> {
  const record = mergeRecord(message.targetKey, message.fields);
  for (const key of mapping.target.key) {
    if (record[key] === undefined || record[key] === null) throw new PermanentError(`message for ${mapping.target.entity} has no value for target key field "${key}"`);
  }
  return record;
}
