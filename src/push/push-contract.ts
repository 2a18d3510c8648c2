import type { Job } from '../model/job';
import { pushMaxAgeSeconds } from '../model/push';
import type { Mapping } from '../model/mapping';

/** Most changes one generic notification may carry; more is a storm the sender should flag with `tooManyChanges`. */
export const MAX_CHANGES_PER_NOTIFICATION = 1000;

/** Largest notification body accepted, in bytes (both hosts). */
export const MAX_PUSH_BODY_BYTES = 1024 * 1024;

/** One parameter of a notification: where it is in the body and when it is required. */
interface PushParameter {
  /** JSON path into the body, e.g. `$.changes[*].record.id`. */
  path: string;
  /** `always`, or the action that needs it (`upsert`). */
  required: 'always' | 'upsert' | 'no';
  description: string;
}

/** The source columns an upsert must carry: the key, the watermark field, every mapped source field (and `concat` inputs). */
export function upsertColumns(job: Job, mapping: Mapping): string[] {
  const columns = new Set<string>(mapping.source.key);
  columns.add(job.watermark.field);
  for (const field of mapping.fields) {
    if (field.source !== undefined) columns.add(field.source);
    for (const op of field.operations ?? []) if (op.op === 'concat') op.fields.forEach((f) => columns.add(f));
  }
  return [...columns];
}

/** True when serializing needs the source itself (a resolver looks related records up there). */
export function needsSourceLookups(mapping: Mapping): boolean {
  return mapping.fields.some((field) => field.resolver !== undefined);
}

/** What `GET /api/hooks/{job}` answers: the job's notification contract. */
export function pushContract(job: Job, mapping: Mapping): Record<string, unknown> {
  const push = job.push;
  if (!push) return {};
  const auth = {
    localHost: push.secret
      ? `header x-highwater-key: <value of app setting ${push.secret}>, x-highwater-signature: sha256=<hex HMAC-SHA256 of the raw body with that value>, or query code=<that value>`
      : 'refused: push.secret is not set',
    functionsApp: 'function key (query code=… or header x-functions-key)',
  };
  const common = { job: job.name, format: push.format, method: 'POST', route: `/api/hooks/${job.name}`, authentication: auth, maxBodyBytes: MAX_PUSH_BODY_BYTES, maxAgeSeconds: pushMaxAgeSeconds(push) };
  if (push.format === 'dataverse') {
    return {
      ...common,
      body: 'a RemoteExecutionContext (JSON) of a step on Create, Update or Delete of the table',
      parameters: [
        { path: '$.MessageName', required: 'always', description: 'Create, Update or Delete' },
        { path: '$.PrimaryEntityName', required: 'always', description: `must be "${push.table ?? mapping.source.entity}"` },
        { path: '$.PrimaryEntityId', required: 'always', description: `the row's id: the source key ${mapping.source.key.join(', ')}` },
        { path: '$.OrganizationId', required: 'always', description: push.organizationId ? `must be ${push.organizationId}` : "the environment's id (not checked: push.organizationId is not set)" },
        { path: '$.OperationCreatedOn', required: 'always', description: `/Date(ms)/, within the last ${pushMaxAgeSeconds(push)} s; the change tracker when the image has no ${job.watermark.field}` },
        { path: '$.PostEntityImages[0].value.Attributes', required: 'upsert', description: `a post-image with ${upsertColumns(job, mapping).join(', ')}; without it (or with a column missing) the row is read by id` },
      ] satisfies PushParameter[],
    };
  }
  if (push.format === 'businesscentral') {
    return {
      ...common,
      body: "Business Central webhook notifications of this job's subscription ({ value: [...] }); ?validationToken=… is its handshake, answered 200 with the token as text/plain",
      parameters: [
        { path: '$.value', required: 'always', description: 'one or more notifications' },
        { path: '$.value[*].clientState', required: push.clientState ? 'always' : 'no', description: push.clientState ? `must equal app setting ${push.clientState}` : 'not checked: push.clientState is not set' },
        { path: '$.value[*].changeType', required: 'always', description: 'created or updated (the record is read by id), deleted (deleted by id), collection (the job is polled)' },
        { path: '$.value[*].resource', required: 'always', description: `…/${mapping.source.entity}(<id>); the source key ${mapping.source.key.join(', ')} is that id` },
        { path: '$.value[*].lastModifiedDateTime', required: 'always', description: `within the last ${pushMaxAgeSeconds(push)} s; the change tracker of a delete` },
      ] satisfies PushParameter[],
    };
  }
  const record = (column: string, required: PushParameter['required'], description: string): PushParameter => ({ path: `$.changes[*].record.${column}`, required, description });
  const keys = new Set(mapping.source.key);
  return {
    ...common,
    parameters: [
      { path: '$.sentAt', required: 'always', description: `ISO 8601 time the notification was sent, within the last ${pushMaxAgeSeconds(push)} s` },
      ...(push.clientState ? [{ path: '$.clientState', required: 'always', description: `must equal app setting ${push.clientState}` } satisfies PushParameter] : []),
      { path: '$.tooManyChanges', required: 'no', description: 'true: too many changes to list; the job is polled' },
      { path: '$.changes', required: 'always', description: `1 to ${MAX_CHANGES_PER_NOTIFICATION} changes (may be empty with tooManyChanges)` },
      { path: '$.changes[*].action', required: 'no', description: 'upsert (default) or delete' },
      ...mapping.source.key.map((column) => record(column, 'always', 'source key')),
      record(job.watermark.field, 'upsert', `change tracker (${job.watermark.type}); a delete without it is stamped with sentAt`),
      ...upsertColumns(job, mapping)
        .filter((column) => !keys.has(column) && column !== job.watermark.field)
        .map((column) => record(column, 'upsert', 'mapped source field')),
    ] satisfies PushParameter[],
  };
}
