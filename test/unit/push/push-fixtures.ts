import { type Job, JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { PushRejection } from '../../../src/push/push-reading';

/** A mapping and a job that takes pushes, for the push readers' tests. */
export const mapping: Mapping = {
  name: 'm',
  source: { entity: 'customers', key: ['id'] },
  target: { entity: 'customers', key: ['crm_id'] },
  fields: [
    { target: 'crm_id', source: 'id' },
    { target: 'name', source: 'displayName', operations: [{ op: 'concat', fields: ['suffix'] }] },
  ],
};
export const job: Job = {
  name: 'j',
  order: 100,
  schedule: '0 * * * * *',
  enabled: true,
  source: 's',
  target: 't',
  mapping: 'm',
  priority: 'normal',
  watermark: { type: 'datetime', field: 'lastModifiedDateTime' },
  filter: [],
  action: JobActionType.NewUpdate,
  skipOutdatedMessages: true,
  skipUnchanged: false,
  pageSize: 500,
  lookbackSeconds: 0,
  push: { format: 'generic', imageMissingIsNull: false },
};

export function rejection(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof PushRejection) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

export async function rejectionOf(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PushRejection) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

