import type { BusinessCentralPushClient } from '../../../connectors/businesscentral/bc-push-client';
import type { Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { readBusinessCentralNotification } from '../../../src/push/bc-notification';
import { job, mapping, rejectionOf } from './push-fixtures';

describe('Business Central notifications', () => {
  const bcJob: Job = { ...job, push: { format: 'businesscentral', notificationUrl: 'U', imageMissingIsNull: false } };
  const bcMapping: Mapping = { ...mapping, fields: [{ target: 'crm_id', source: 'id' }, { target: 'name', source: 'displayName' }] };
  const records = new Map<string, Record<string, unknown>>([['c1', { id: 'c1', displayName: 'One', lastModifiedDateTime: '2026-12-06T00:00:01Z' }]]);
  const reads: string[] = [];
  const client = {
    readRecord: async (set: string, id: string) => {
      reads.push(`${set}(${id})`);
      return records.get(id);
    },
  } as unknown as BusinessCentralPushClient;
  const item = (changeType: string, id: string, extra: Record<string, unknown> = {}) => ({
    subscriptionId: 'sub',
    clientState: 'cs',
    expirationDateTime: '2026-12-09T00:00:00Z',
    resource: `api/v2.0/companies(b18aed47-c385-49d2-b954-dbdf8ad71780)/customers(${id})`,
    changeType,
    lastModifiedDateTime: '2026-12-06T00:00:05Z',
    ...extra,
  });

  beforeEach(() => (reads.length = 0));

  it('reads each created or updated record once, deletes by id, and leaves a record gone meanwhile to its delete', async () => {
    const reading = await readBusinessCentralNotification({ value: [item('created', 'c1'), item('updated', 'c1'), item('updated', 'gone'), item('deleted', 'c2')] }, bcJob, bcMapping, 'cs', client);
    expect(reads).toEqual(['customers(c1)', 'customers(gone)']);
    expect(reading.changes).toEqual([
      { action: 'upsert', row: records.get('c1'), fallbackChangeTracker: new Date('2026-12-06T00:00:05Z') },
      { action: 'delete', row: { id: 'c2' }, fallbackChangeTracker: new Date('2026-12-06T00:00:05Z') },
    ]);
    expect(reading.sentAt).toEqual(new Date('2026-12-06T00:00:05Z'));
  });

  it('polls for a collection, and for more records than it reads one by one', async () => {
    const collection = { ...item('collection', 'x'), resource: '/api/v2.0/companies(b18aed47-c385-49d2-b954-dbdf8ad71780)/customers?$filter=lastModifiedDateTime%20gt%202026-12-06T00:00:00Z' };
    expect(await readBusinessCentralNotification({ value: [collection] }, bcJob, bcMapping, 'cs', client)).toMatchObject({ changes: [], pollReason: expect.stringContaining('a collection notification') });
    const many = Array.from({ length: 26 }, (_, i) => item('updated', `r${i}`));
    expect(await readBusinessCentralNotification({ value: many }, bcJob, bcMapping, 'cs', client)).toMatchObject({ pollReason: '26 records changed, over 25 to read one by one: the job is polled' });
    expect(reads).toEqual([]);
  });

  it("refuses Microsoft's documented sample for this job: an item notification is of another entity set", async () => {
    const sample = { ...item('updated', '26814998-936a-401c-81c1-0e848a64971d'), resource: 'api/v2.0/companies(b18aed47-c385-49d2-b954-dbdf8ad71780)/items(26814998-936a-401c-81c1-0e848a64971d)' };
    expect(await rejectionOf(readBusinessCentralNotification({ value: [sample] }, bcJob, bcMapping, 'cs', client))).toEqual({
      status: 400,
      message: '$.value[0].resource: entity set "items" is not the one of job "j" ("customers")',
    });
  });

  it('refuses a wrong client state, an unknown change type, and a delete when the source key is not id', async () => {
    expect(await rejectionOf(readBusinessCentralNotification({ value: [item('created', 'c1', { clientState: 'x' })] }, bcJob, bcMapping, 'cs', client))).toEqual({
      status: 401,
      message: "$.value[0].clientState: does not match the job's push.clientState",
    });
    expect(await rejectionOf(readBusinessCentralNotification({ value: [item('merged', 'c1')] }, bcJob, bcMapping, 'cs', client))).toEqual({
      status: 400,
      message: '$.value[0].changeType: expected created, updated, deleted or collection, got "merged"',
    });
    const byNumber: Mapping = { ...bcMapping, source: { entity: 'customers', key: ['number'] } };
    expect((await rejectionOf(readBusinessCentralNotification({ value: [item('deleted', 'c1')] }, bcJob, byNumber, 'cs', client))).message).toBe(
      '$.value[0].resource: a deleted record is known by its id only, but mapping "m" has source key "number" (use id)',
    );
  });
});
