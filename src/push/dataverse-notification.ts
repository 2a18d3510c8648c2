import { readRemoteExecutionContext, RemoteExecutionContextError } from '../../connectors/dataverse/remote-execution-context';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { needsSourceLookups, upsertColumns } from './push-contract';
import { PushRejection, type PushReading } from './push-reading';

const bad = (path: string, problem: string) => new PushRejection(400, 'BadNotification', `${path}: ${problem}`);

/**
 * Reads a Dataverse `RemoteExecutionContext` for a job: Create and Update become an upsert of the
 * post-image's columns, Delete a delete by id; the change tracker is the image's watermark column
 * (`modifiedon`), else the operation's time. An upsert whose image is missing or lacks a mapped
 * column (a step registered without one, a payload over Dataverse's size limit that dropped it)
 * is read by id from the source instead: never half-written.
 * @throws PushRejection (400) for a context that cannot be read or is not for this job's table,
 *   organization or a Create/Update/Delete step.
 */
export function readDataverseNotification(body: unknown, job: Job, mapping: Mapping): PushReading {
  let event;
  try {
    event = readRemoteExecutionContext(body);
  } catch (err) {
    if (err instanceof RemoteExecutionContextError) throw bad(err.path, err.problem);
    throw err;
  }
  const push = job.push;
  const table = dataverseTable(job, mapping);
  if (event.entityName !== table) {
    throw bad('$.PrimaryEntityName', `"${event.entityName}" is not the table of job "${job.name}" ("${table}")`);
  }
  if (push?.organizationId && event.organizationId !== push.organizationId.toLowerCase()) {
    throw new PushRejection(401, 'Unauthorized', `$.OrganizationId: ${event.organizationId} is not the job's push.organizationId`);
  }
  if (mapping.source.key.length !== 1) {
    throw bad('$.PrimaryEntityId', `mapping "${mapping.name}" has a source key of ${mapping.source.key.length} columns; a Dataverse row is addressed by its id alone`);
  }
  const keyColumn = mapping.source.key[0];
  const base = { sentAt: event.operationCreatedOn, sentAtPath: '$.OperationCreatedOn' };
  const stamp = event.operationCreatedOn;
  switch (event.messageName) {
    case 'Delete':
      return { ...base, changes: [{ action: 'delete', row: { [keyColumn]: event.id }, fallbackChangeTracker: stamp }] };
    case 'Create':
    case 'Update': {
      if (needsSourceLookups(mapping)) return { ...base, changes: [], pollReason: `mapping "${mapping.name}" has resolvers, which read the source: the job is polled` };
      const image = event.postImage;
      const missing = image ? upsertColumns(job, mapping).filter((column) => column !== keyColumn && !(column in image)) : [];
      // No image (a step without one, or removed by Dataverse for size), or one without every
      // mapped column (null columns are left out): the row is read by id, never half-written.
      if (!image || (missing.length > 0 && !push?.imageMissingIsNull)) return { ...base, changes: [], reads: [{ id: event.id, fallbackChangeTracker: stamp }] };
      return { ...base, changes: [{ action: 'upsert', row: { ...image, [keyColumn]: event.id }, fallbackChangeTracker: stamp, missingIsNull: true }] };
    }
    default:
      throw bad('$.MessageName', `"${event.messageName}" is not Create, Update or Delete`);
  }
}

/** The logical name of the table a Dataverse push job takes contexts of (`push.table`, else the mapping's source entity). */
export function dataverseTable(job: Job, mapping: Mapping): string {
  return job.push?.table ?? mapping.source.entity;
}
