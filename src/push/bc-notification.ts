import type { BusinessCentralPushClient } from '../../connectors/businesscentral/bc-push-client';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { needsSourceLookups } from './push-contract';
import { PushRejection, type PushedChange, type PushReading } from './push-reading';

/** Most records one notification has read before the job is polled instead (Business Central serves 5 requests at a time). */
const MAX_RECORD_READS = 25;

const CHANGE_TYPES = new Set(['created', 'updated', 'deleted', 'collection']);
/** `…/<entitySet>(<id>)` at the end of a notification's resource (its query, if any, cut off first). */
const RECORD = /\/([A-Za-z_][A-Za-z0-9_]*)\(([^()]+)\)$/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const bad = (path: string, problem: string) => new PushRejection(400, 'BadNotification', `${path}: ${problem}`);

/**
 * Reads Business Central webhook notifications (`{ value: [{ subscriptionId, clientState,
 * expirationDateTime, resource, changeType, lastModifiedDateTime }] }`) for a job:
 * `created` / `updated` read the record by id as it is now (a record gone meanwhile is left to
 * its `deleted` notification), `deleted` deletes by id, `collection` (over a thousand changes in
 * Business Central's 30-second window) asks for a poll of the job, as do more than
 * {@link MAX_RECORD_READS} records to read. The change tracker of a deleted record is the
 * notification's `lastModifiedDateTime`.
 * @throws PushRejection 401 for a wrong clientState, 400 for anything else not as documented;
 *   the client's errors when a record cannot be read (the sender retries).
 */
export async function readBusinessCentralNotification(body: unknown, job: Job, mapping: Mapping, clientState: string | undefined, client: BusinessCentralPushClient): Promise<PushReading> {
  if (!isObject(body) || !Array.isArray(body.value)) throw bad('$.value', 'expected an array of notifications');
  if (body.value.length === 0) throw bad('$.value', 'expected at least one notification');
  if (mapping.source.key.length !== 1) throw bad('$.value', `mapping "${mapping.name}" has a source key of ${mapping.source.key.length} columns; a Business Central record is addressed by its id alone`);
  const keyColumn = mapping.source.key[0];
  let newest = 0;
  let pollReason: string | undefined;
  const deletes: PushedChange[] = [];
  const toRead = new Map<string, Date>();
  body.value.forEach((item, i) => {
    const at = `$.value[${i}]`;
    if (!isObject(item)) throw bad(at, 'expected an object');
    if (clientState !== undefined && item.clientState !== clientState) {
      throw new PushRejection(401, 'Unauthorized', item.clientState === undefined ? `${at}.clientState: missing` : `${at}.clientState: does not match the job's push.clientState`);
    }
    const changeType = item.changeType;
    if (typeof changeType !== 'string' || !CHANGE_TYPES.has(changeType)) throw bad(`${at}.changeType`, `expected created, updated, deleted or collection, got ${JSON.stringify(changeType)}`);
    const modified = typeof item.lastModifiedDateTime === 'string' ? new Date(item.lastModifiedDateTime) : undefined;
    if (!modified || Number.isNaN(modified.getTime())) throw bad(`${at}.lastModifiedDateTime`, 'expected an ISO 8601 date-time');
    newest = Math.max(newest, modified.getTime());
    if (typeof item.resource !== 'string' || item.resource === '') throw bad(`${at}.resource`, 'missing');
    const resource = item.resource.split('?')[0];
    if (changeType === 'collection') {
      pollReason ??= `a collection notification for ${resource}: the job is polled`;
      return;
    }
    const m = RECORD.exec(resource);
    if (!m) throw bad(`${at}.resource`, `expected …/${mapping.source.entity}(<id>), got ${JSON.stringify(resource.slice(0, 200))}`);
    if (m[1] !== mapping.source.entity) throw bad(`${at}.resource`, `entity set "${m[1]}" is not the one of job "${job.name}" ("${mapping.source.entity}")`);
    const id = m[2].replace(/^'(.*)'$/, '$1');
    if (changeType === 'deleted') {
      // A deleted record cannot be read: only its id says which one it was.
      if (keyColumn !== 'id') throw bad(`${at}.resource`, `a deleted record is known by its id only, but mapping "${mapping.name}" has source key "${keyColumn}" (use id)`);
      toRead.delete(id);
      deletes.push({ action: 'delete', row: { [keyColumn]: id }, fallbackChangeTracker: modified });
    } else toRead.set(id, modified);
  });
  const base = { sentAt: new Date(newest), sentAtPath: '$.value[*].lastModifiedDateTime' };
  if (toRead.size > MAX_RECORD_READS) pollReason ??= `${toRead.size} records changed, over ${MAX_RECORD_READS} to read one by one: the job is polled`;
  if (toRead.size > 0 && needsSourceLookups(mapping)) pollReason ??= `mapping "${mapping.name}" has resolvers, which read the source: the job is polled`;
  if (pollReason !== undefined) return { ...base, changes: deletes, pollReason };
  const upserts: PushedChange[] = [];
  for (const [id, modified] of toRead) {
    const record = await client.readRecord(mapping.source.entity, id);
    // Gone since: its `deleted` notification (in this or a later body) removes it.
    if (record) upserts.push({ action: 'upsert', row: { ...record, [keyColumn]: record[keyColumn] ?? id }, fallbackChangeTracker: modified });
  }
  return { ...base, changes: [...upserts, ...deletes] };
}
