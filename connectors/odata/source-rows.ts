import type { RowChange } from '../base/change-page';
import { PermanentError } from '../../src/platform/errors';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { OdataResponse } from './odata-http';
import { DELTA_LINK_FIELD } from './delta-watermark';
import { matchesCondition } from './odata-filter';
import { identifier } from './odata-literals';
import { parseExactJson } from './exact-json';

/** A record as read, without `@odata.*` annotations. */
export type OdataRow = Record<string, unknown>;

/**
 * The properties a job reads (`$select`): source keys, the watermark property, every mapped
 * source field, fields joined by `concat`, and the soft-delete field; each checked as an identifier.
 */
export function selectedFields(mapping: Mapping, job: Job): string[] {
  const fields = new Set<string>(mapping.source.key);
  if (job.watermark.field !== DELTA_LINK_FIELD) fields.add(job.watermark.field);
  for (const field of mapping.fields) {
    if (field.source !== undefined) fields.add(field.source);
    for (const op of field.operations ?? []) if (op.op === 'concat') op.fields.forEach((f) => fields.add(f));
  }
  if (job.softDelete) fields.add(job.softDelete.field);
  return [...fields].map((f) => identifier(f, `mapping "${mapping.name}": source field`));
}

/**
 * A record read as the change detection sends: `Delete` when `job.softDelete` matches it, else
 * the job's action. Shared by detection (watermark runs and change tracking) and reads by key.
 */
export function recordChange(row: OdataRow, job: Job, changeTracker: string): RowChange {
  const deleted = job.softDelete !== undefined && matchesCondition(row, job.softDelete);
  return { row, changeTracker, ...(deleted ? { action: JobActionType.Delete } : {}) };
}

/**
 * The `value` array of a collection answer; numbers a double cannot hold exactly as strings of
 * their digits (see {@link parseExactJson}).
 * @throws PermanentError when the answer has none.
 */
export function rowsOf(response: OdataResponse, what: string): Array<Record<string, unknown>> {
  const value = (exactBody(response) ?? response.body)?.value;
  if (!Array.isArray(value)) throw new PermanentError(`${what}: the answer has no "value" array (HTTP ${response.status})`);
  return value.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
}

/** The answer parsed again with exact numbers, when it has numbers beyond a double (rare); else undefined. */
function exactBody(response: OdataResponse): Record<string, unknown> | undefined {
  if (response.body === undefined || typeof response.text !== 'string') return undefined;
  try {
    return parseExactJson(response.text) as Record<string, unknown> | undefined;
  } catch {
    return undefined; // parsed before: cannot happen; the first parse stands
  }
}

/** A record without instance annotations (`@odata.etag`, `@odata.context`, `…@OData.Community.Display.V1.FormattedValue`). */
export function withoutAnnotations(row: Readonly<Record<string, unknown>>): OdataRow {
  const out: OdataRow = {};
  for (const [key, value] of Object.entries(row)) if (!key.includes('@')) out[key] = value;
  return out;
}

/**
 * Whether a delta answer's entry reports a removed record: OData 4.0 JSON marks it with an
 * `@odata.context` ending in `$deletedEntity` (Dataverse, Business Central), 4.01 with `@removed`.
 */
export function isRemovedEntry(row: Readonly<Record<string, unknown>>): boolean {
  const context = row['@odata.context'];
  return (typeof context === 'string' && context.endsWith('$deletedEntity')) || row['@removed'] !== undefined;
}

/**
 * The source key fields of a removed entry. Such an entry carries only the record's id: by key
 * name, or as `id` (4.0 `$deletedEntity`), which then stands for the mapping's single key field.
 * @throws PermanentError when the key cannot be told.
 */
export function removedEntryKey(row: Readonly<Record<string, unknown>>, mapping: Mapping): OdataRow {
  const keys = mapping.source.key;
  if (keys.every((k) => row[k] !== undefined && row[k] !== null)) return Object.fromEntries(keys.map((k) => [k, row[k]]));
  if (keys.length === 1 && row.id !== undefined && row.id !== null) return { [keys[0]]: row.id };
  throw new PermanentError(`mapping "${mapping.name}": a removed record carries no value for source key ${keys.join(', ')}`);
}
