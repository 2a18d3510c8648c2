import type { Clock } from '../../src/platform/clock';
import { ConfigError, PermanentError } from '../../src/platform/errors';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { bytesToJson, jsonTextToJson, objectToJson } from '../../src/model/exact-values';
import { JsonText } from '../../src/model/json-text';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../src/model/queue-message';
import { joinSourceKey } from '../../src/model/source-key';
import { parseWatermarkType, WatermarkValue } from '../../src/model/watermark-value';
import { applyOperations, type SourceRow, toText } from './operations';
import { type RelatedValueLookup, resolveValue } from './resolvers';

export interface SerializeContext {
  /** Time of detection (`detectedAt`). */
  clock: Pick<Clock, 'now'>;
  /** Resolver lookups (pass a per-run `ResolverCache`); required when a field mapping has a resolver. */
  lookup?: RelatedValueLookup;
  /** Action of this message. Default `job.action` (a soft-deleted row passes `Delete`). */
  action?: QueueMessage['action'];
  /** Canonical change tracker when the connector already computed it. Default: from `row[job.watermark.field]`. */
  changeTracker?: string;
  /** Treat a source field missing from the row as null instead of a ConfigError. Default false. */
  missingFieldsAreNull?: boolean;
}

/**
 * The Serialize pipeline every source connector shares: key → field mappings → source
 * operations → resolvers → message. Resolvers run after a field's operations, so that e.g. a
 * `trim` cleans the value before it is looked up.
 */
export abstract class ConnectorBase {
  /**
   * Turns one source row into a message for `job`.
   * - `sourceKey`: the row's `mapping.source.key` values as text (Date → ISO), joined with `|`
   *   (`\` and `|` escaped, see `joinSourceKey`).
   * - `fields`: each field mapping's source value (or `constant`), its operations, its resolver,
   *   as JSON (Date → ISO 8601 UTC, bigint → number when safe else its digits, bytes →
   *   `{"$binary": base64}`, a JSON document a JS number would round as `{"$jsonText": text}`;
   *   see `src/model/exact-values.ts`).
   * - `targetKey`: the mapped fields named by `mapping.target.key`.
   * - `changeTracker`: the canonical watermark value of the row.
   * - `actionParameters`: for `InvokeAction`, the mapped fields.
   * - `correlationId`: a fresh UUID.
   * @throws ConfigError when the mapping does not fit the row; PermanentError when a value cannot
   *   be converted or a key is null or empty; TransitiveError / PermanentError from resolvers (see `resolveValue`).
   */
  static async serialize(row: SourceRow, mapping: Mapping, job: Job, ctx: SerializeContext): Promise<QueueMessage> {
    const sourceKey = joinSourceKey(
      mapping.source.key.map((field) => {
        const value = row[field];
        if (value === null || value === undefined) throw new PermanentError(`mapping "${mapping.name}": source key field "${field}" is null`);
        const text = toText(value);
        // An empty key part joins to the same key as a NULL one and cannot address a record: stop like NULL.
        if (text === '') throw new PermanentError(`mapping "${mapping.name}": source key field "${field}" is empty`);
        return text;
      }),
    );
    const fields: Record<string, JsonValue> = {};
    for (const fieldMapping of mapping.fields) {
      const where = whereOf(mapping, fieldMapping);
      let value: unknown = fieldMapping.constant ?? null;
      if (fieldMapping.source !== undefined) {
        if (!(fieldMapping.source in row) && !ctx.missingFieldsAreNull) {
          throw new ConfigError(`${where}: source field "${fieldMapping.source}" is not in the ${mapping.source.entity} record`);
        }
        value = row[fieldMapping.source];
      }
      if (fieldMapping.operations?.length) value = applyOperations(value, fieldMapping.operations, row, where);
      if (fieldMapping.resolver) {
        if (!ctx.lookup) throw new ConfigError(`${where}: this source connector does not support resolvers`);
        value = await resolveValue(value, fieldMapping.resolver, ctx.lookup, where);
      }
      fields[fieldMapping.target] = toJsonValue(value, where);
    }
    const targetKey: Record<string, JsonValue> = {};
    for (const field of mapping.target.key) {
      if (!(field in fields)) throw new ConfigError(`mapping "${mapping.name}": target key field "${field}" is not a mapped field`);
      targetKey[field] = fields[field];
    }
    const action = ctx.action ?? job.action;
    return createQueueMessage({
      jobName: job.name,
      action,
      sourceKey,
      targetKey,
      changeTracker: ctx.changeTracker ?? canonicalChangeTracker(row, job),
      fields,
      ...(action === JobActionType.InvokeAction ? { actionParameters: { ...fields } } : {}),
      detectedAt: ctx.clock.now().toISOString(),
    });
  }
}

/** Field mapping → the prefix of its error messages, built once per mapping instead of per row. */
const WHERE = new WeakMap<object, string>();

function whereOf(mapping: Mapping, fieldMapping: Mapping['fields'][number]): string {
  let where = WHERE.get(fieldMapping);
  if (where === undefined) {
    where = `mapping "${mapping.name}": field "${fieldMapping.target}"`;
    WHERE.set(fieldMapping, where);
  }
  return where;
}

/**
 * The row's change tracker in the canonical form of the job's watermark type (an unknown type
 * keeps the value as text).
 * @throws PermanentError when the watermark field is null or not a value of the type.
 */
export function canonicalChangeTracker(row: SourceRow, job: Job): string {
  const raw = row[job.watermark.field];
  if (raw === null || raw === undefined) throw new PermanentError(`job "${job.name}": watermark field "${job.watermark.field}" is null`);
  const type = parseWatermarkType(job.watermark.type);
  return type ? WatermarkValue.canonicalize(type, raw) : toText(raw);
}

/** A driver value as JSON for a message body (the encoding of `src/model/exact-values.ts`). */
export function toJsonValue(value: unknown, where: string): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new PermanentError(`${where}: ${value} is not a JSON number`);
      return value;
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new PermanentError(`${where}: invalid date`);
    return value.toISOString();
  }
  if (value instanceof Uint8Array) return bytesToJson(value);
  if (value instanceof JsonText) return jsonTextToJson(value.text);
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item, where));
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) out[key] = toJsonValue(item, where);
    return objectToJson(out);
  }
  throw new PermanentError(`${where}: a ${typeof value} cannot be carried in a message`);
}
