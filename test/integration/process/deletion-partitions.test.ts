import { createHash } from 'node:crypto';
import { JobActionType, type Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { createQueueMessage } from '../../../src/model/queue-message';
import { DELETIONS_TABLE, DeletionStore } from '../../../src/process/deletion-store';
import { useTableStorage } from '../../support/table-storage';

const tables = useTableStorage();

/** Recorded deletions spread over 16 partitions per target entity, written in transactions (Azurite scans a partition to replace an entity). */
describe('recorded deletions in partitions', () => {
  const job = { name: 'delete-job', target: 'erp', watermark: { type: 'number', field: 'v' } } as Job;
  const mapping = { name: 'm', target: { entity: `customers-${Date.now()}`, key: ['id'] } } as Mapping;
  const change = (i: number, tracker: number, action: JobActionType.Delete | JobActionType.NewUpdate = JobActionType.Delete) =>
    createQueueMessage({ jobName: job.name, action, sourceKey: `C-${i}`, targetKey: { id: `C-${i}` }, changeTracker: String(tracker), fields: {} });
  const entityPartition = createHash('sha256').update(`${job.target}\n${mapping.target.entity}`).digest('hex');

  it('writes one row per record to <entity>|<bucket> and answers for older and newer upserts', async () => {
    const table = await tables().table(DELETIONS_TABLE);
    const store = new DeletionStore(table);
    await store.recordDeletedMany(job, mapping, Array.from({ length: 200 }, (_, i) => change(i, 10)));
    const rows = (await table.list()).filter((r) => r.partitionKey.startsWith(`${entityPartition}|`));
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((r) => r.partitionKey)).size).toBe(16);
    for (const r of rows) expect(r.partitionKey).toBe(`${entityPartition}|${r.rowKey[0]}`);
    const upserts = [change(1, 9, JobActionType.NewUpdate), change(2, 10, JobActionType.NewUpdate), change(3, 11, JobActionType.NewUpdate), change(999, 1, JobActionType.NewUpdate)];
    expect(await store.deletedAfterMany(job, mapping, upserts)).toEqual([true, false, false, false]);
  });

  it('keeps the newest delete of a record: an older one recorded later does not lower it', async () => {
    const store = new DeletionStore(await tables().table(DELETIONS_TABLE));
    await store.recordDeletedMany(job, mapping, [change(500, 30)]);
    await store.recordDeletedMany(job, mapping, [change(500, 20)]);
    expect(await store.deletedAfterMany(job, mapping, [change(500, 25, JobActionType.NewUpdate)])).toEqual([true]);
  });

  it('still honours a delete an earlier version recorded in the single partition of the entity', async () => {
    const table = await tables().table(DELETIONS_TABLE);
    const store = new DeletionStore(table);
    const rowKey = createHash('sha256').update(JSON.stringify(['C-700'])).digest('hex');
    await table.upsert({ partitionKey: entityPartition, rowKey, properties: { ChangeTracker: '50', WatermarkType: 'number', JobName: job.name } });
    // A newer bucket row exists for another record only; an older bucket row for this one.
    await store.recordDeletedMany(job, mapping, [change(700, 40), change(701, 60)]);
    expect(await store.deletedAfterMany(job, mapping, [change(700, 45, JobActionType.NewUpdate), change(700, 55, JobActionType.NewUpdate)])).toEqual([true, false]);
  });
});
