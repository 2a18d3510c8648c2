import { JobActionType, type Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { liveRelatedJobs, relatedJobsOf } from '../../../src/process/related-jobs';

const mapping = (name: string, entity: string) => ({ name, source: { entity: 's', key: ['id'] }, target: { entity, key: ['id'] }, fields: [] }) as unknown as Mapping;
const mappings = new Map([
  ['to-customers', mapping('to-customers', 'customers')],
  ['delete-customers', mapping('delete-customers', 'customers')],
  ['to-contacts', mapping('to-contacts', 'contacts')],
]);
const job = (name: string, action: JobActionType, map: string, over: Partial<Job> = {}) =>
  ({ name, action, mapping: map, target: 'erp', watermark: { type: 'datetime', field: 'm' }, ...over }) as unknown as Job;

const jobs = [
  job('accounts', JobActionType.NewUpdate, 'to-customers'),
  job('accounts-2', JobActionType.NewUpdate, 'to-customers'),
  job('deleted', JobActionType.Delete, 'delete-customers'),
  job('deleted-numbers', JobActionType.Delete, 'delete-customers', { watermark: { type: 'number', field: 'n' } } as Partial<Job>),
  job('deleted-elsewhere', JobActionType.Delete, 'delete-customers', { target: 'crm' }),
  job('contacts', JobActionType.NewUpdate, 'to-contacts'),
  job('invoke', JobActionType.InvokeAction, 'to-customers'),
];

describe('relatedJobsOf', () => {
  const related = relatedJobsOf(jobs, (name) => mappings.get(name));

  it('relates upserts and deletes of the same target entity, connection and watermark type', () => {
    expect(related('accounts')).toEqual(['deleted']);
    expect(related('deleted')).toEqual(['accounts', 'accounts-2']);
  });

  it('never relates two upsert jobs (they may write different columns), nor other entities, connections, types or actions', () => {
    expect(related('contacts')).toEqual([]);
    expect(related('deleted-numbers')).toEqual([]);
    expect(related('deleted-elsewhere')).toEqual([]);
    expect(related('invoke')).toEqual([]);
    expect(related('unknown')).toEqual([]);
  });

  it('follows a reloaded configuration', () => {
    let current = jobs;
    const live = liveRelatedJobs(() => current, (name) => mappings.get(name));
    expect(live('accounts')).toEqual(['deleted']);
    current = jobs.filter((j) => j.name !== 'deleted');
    expect(live('accounts')).toEqual([]);
  });
});
