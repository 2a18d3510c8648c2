import { type ChangeRun, type RowChange, serializeRows } from '../base/change-page';
import { canonicalChangeTracker } from '../base/connector-base';
import { ConfigError, errorKind, errorMessage } from '../../src/platform/errors';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { deltaChange, statusOf } from './delta-reader';
import { checkDeltaJob, isDeltaJob, nextStamp } from './delta-watermark';
import { readRows } from './odata-current-trackers';
import { renderFilter } from './odata-filter';
import type { OdataHttpClient } from './odata-http';
import { keyCondition } from './odata-key-filter';
import { identifier } from './odata-literals';
import { COMPLETION_READ_SIZE } from './row-completion';
import { recordChange, selectedFields } from './source-rows';

export interface ReadByKeysRead {
  http: OdataHttpClient;
  /** Property types of the entity set, name → `Edm.*`, as detection types its records; undefined: untyped. */
  types: ReadonlyMap<string, string> | undefined;
}

/**
 * The records named by `sourceKeys`, as detection would send them now (see
 * `SourceConnector.readByKeys`): `$filter` on their keys ({@link keyCondition};
 * {@link COMPLETION_READ_SIZE} records a request, the URL stays short), the `$select` of
 * detection, following the service's pages; each record becomes its message through the code
 * detection uses. Rows are matched back to the keys by the message's `sourceKey`, so a record
 * found by a looser comparison never answers for another key; a key that is no value of its
 * property's type (text for an integer or a GUID) is not in the source.
 *
 * A watermark job: the job filter and `watermark ne null` go in the `$filter` (a record with a
 * null tracker is never detected), the change tracker is the record's watermark. A job tracking
 * changes by delta links: the entity set is read without change tracking, by key (Dataverse and
 * OData services filter an entity set by its key); the job filter is applied to the records
 * read, as detection applies it, and each message carries the stamp of this read (now, ISO 8601
 * UTC, as a detection run would stamp it now) as its change tracker. A service that refuses to
 * filter the set by key (HTTP 400, 405, 501) makes this a ConfigError naming why: such a job's
 * records cannot be read by key at all.
 * A record that cannot become a message fails the read even with `job.skipFailedRows`: left out,
 * it would read as a deleted record.
 * @throws the client's classified errors; ConfigError for a name that is no OData identifier or a
 *   change-tracking job whose watermark type is not `string`; what serialization throws.
 */
export async function readOdataByKeys(read: ReadByKeysRead, run: ChangeRun, sourceKeys: readonly string[]): Promise<Map<string, QueueMessage>> {
  const { mapping, job } = run;
  const set = identifier(mapping.source.entity, `mapping "${mapping.name}": source.entity`);
  const keys = mapping.source.key.map((k, i) => identifier(k, `mapping "${mapping.name}": source.key[${i}]`));
  const delta = isDeltaJob(job);
  let select: string[];
  let conditions: string[];
  let changeOf: (row: Record<string, unknown>) => RowChange | undefined;
  if (delta) {
    checkDeltaJob(job);
    // As a change-tracking run: the filter is applied to the records read, so they carry its fields.
    select = [...new Set([...selectedFields(mapping, job), ...job.filter.map((c, i) => identifier(c.field, `job "${job.name}": filter[${i}].field`))])];
    conditions = [];
    const stamp = nextStamp(run.clock.now());
    changeOf = (row) => deltaChange(row, mapping, job, stamp, read.types);
  } else {
    const field = identifier(job.watermark.field, `job "${job.name}": watermark.field`);
    select = selectedFields(mapping, job);
    const filter = renderFilter(job.filter, `job "${job.name}": filter`);
    conditions = [`${field} ne null`, ...(filter ? [filter] : [])];
    changeOf = (row) => recordChange(row, job, canonicalChangeTracker(row, job));
  }
  const strict: ChangeRun = { ...run, job: { ...job, skipFailedRows: false } };
  const wanted = new Set(sourceKeys);
  const found = new Map<string, QueueMessage>();
  const byKey: string[] = [];
  for (const key of wanted) {
    const condition = typedCondition(key, keys, read.types, mapping);
    if (condition !== undefined) byKey.push(condition);
  }
  for (let i = 0; i < byKey.length; i += COMPLETION_READ_SIZE) {
    const chunk = byKey.slice(i, i + COMPLETION_READ_SIZE);
    const any = chunk.map((c) => (chunk.length > 1 ? `(${c})` : c)).join(' or ');
    const filter = conditions.length === 0 ? any : `(${any}) and ${conditions.join(' and ')}`;
    const rows = await readRows(read, set, select, filter, chunk.length, `read ${chunk.length} record(s) by key from ${set}`).catch((err: unknown) => {
      throw delta ? refusedFilter(err, job.name, set, keys) : err;
    });
    const { messages } = await serializeRows(strict, rows, changeOf);
    for (const message of messages) if (wanted.has(message.sourceKey)) found.set(message.sourceKey, message);
  }
  return found;
}

/**
 * A change-tracking job's read refused as a request the service does not take (400, 405, 501):
 * the set cannot be filtered by its key outside change tracking, so this job's records cannot be
 * read by key — a ConfigError saying so; other failures as they are.
 */
function refusedFilter(err: unknown, jobName: string, set: string, keys: readonly string[]): unknown {
  const status = statusOf(err);
  if (status !== 400 && status !== 405 && status !== 501) return err;
  return new ConfigError(
    `job "${jobName}" tracks changes by delta links, and ${set} refused a $filter on its key ${keys.join(', ')} (HTTP ${status}: ${errorMessage(err)}): its records cannot be read by key, so two-way sync cannot use this job`,
    { cause: err },
  );
}

/** The key's condition; undefined when a part is no value of its property's type (no record has that key). */
function typedCondition(key: string, keys: readonly string[], types: ReadonlyMap<string, string> | undefined, mapping: Mapping): string | undefined {
  try {
    return keyCondition(key, keys, types, mapping);
  } catch (err) {
    if (errorKind(err) === 'permanent') return undefined;
    throw err;
  }
}
