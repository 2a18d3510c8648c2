import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { MAX_CHANGES_PER_NOTIFICATION, needsSourceLookups, upsertColumns } from './push-contract';
import { PushRejection, type PushedChange, type PushReading } from './push-reading';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const bad = (path: string, problem: string) => new PushRejection(400, 'BadNotification', `${path}: ${problem}`);

/**
 * Reads a generic notification against the job's contract (`pushContract`):
 * `{ sentAt, clientState?, tooManyChanges?, changes: [{ action?, record }] }`.
 * @param clientState the value `clientState` must equal, when the job sets one.
 * @throws PushRejection (400) naming the first parameter that is missing or wrong, by its path.
 */
export function readGenericNotification(body: unknown, job: Job, mapping: Mapping, clientState: string | undefined): PushReading {
  if (!isObject(body)) throw bad('$', 'expected a JSON object');
  const sentAt = typeof body.sentAt === 'string' ? new Date(body.sentAt) : undefined;
  if (!sentAt || !/^\d{4}-\d\d-\d\dT/.test(String(body.sentAt)) || Number.isNaN(sentAt.getTime())) throw bad('$.sentAt', 'expected an ISO 8601 date-time');
  if (clientState !== undefined && body.clientState !== clientState) {
    throw new PushRejection(401, 'Unauthorized', body.clientState === undefined ? '$.clientState: missing' : '$.clientState: does not match the job\'s push.clientState');
  }
  if (body.tooManyChanges !== undefined && typeof body.tooManyChanges !== 'boolean') throw bad('$.tooManyChanges', 'expected a boolean');
  const tooMany = body.tooManyChanges === true;
  const list = body.changes ?? (tooMany ? [] : undefined);
  if (!Array.isArray(list)) throw bad('$.changes', 'expected an array of changes');
  if (list.length === 0 && !tooMany) throw bad('$.changes', 'expected at least one change (or tooManyChanges: true)');
  if (list.length > MAX_CHANGES_PER_NOTIFICATION) throw bad('$.changes', `${list.length} changes, over ${MAX_CHANGES_PER_NOTIFICATION}: send tooManyChanges: true instead`);
  const columns = upsertColumns(job, mapping);
  const lookups = needsSourceLookups(mapping);
  const changes: PushedChange[] = [];
  let pollReason = tooMany ? 'the notification says tooManyChanges' : undefined;
  list.forEach((change, i) => {
    const at = `$.changes[${i}]`;
    if (!isObject(change)) throw bad(at, 'expected an object');
    const action = change.action ?? 'upsert';
    if (action !== 'upsert' && action !== 'delete') throw bad(`${at}.action`, `expected "upsert" or "delete", got ${JSON.stringify(action)}`);
    const record = change.record;
    if (!isObject(record)) throw bad(`${at}.record`, 'expected an object with the source record');
    const required = action === 'delete' ? mapping.source.key : columns;
    for (const column of required) {
      const value = record[column];
      if (value === undefined) throw bad(`${at}.record.${column}`, `missing (${column === job.watermark.field ? 'change tracker' : mapping.source.key.includes(column) ? 'source key' : `mapped by mapping "${mapping.name}"`})`);
      if (mapping.source.key.includes(column) && (value === null || value === '')) throw bad(`${at}.record.${column}`, 'source key must not be null or empty');
    }
    if (action === 'upsert' && lookups) {
      pollReason ??= `mapping "${mapping.name}" has resolvers, which read the source: the job is polled`;
      return;
    }
    changes.push({ action, row: record, fallbackChangeTracker: sentAt });
  });
  return { changes, pollReason, sentAt, sentAtPath: '$.sentAt' };
}
