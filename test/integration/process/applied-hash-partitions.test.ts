import { clearAppliedHashes } from '../../../src/cli/commands/job-state';
import { JobActionType, type Job } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { APPLIED_HASHES_TABLE, AppliedHashStore } from '../../../src/process/applied-hash-store';
import { useTableStorage } from '../../support/table-storage';
import { FakeClock } from '../../support/fake-clock';

const tables = useTableStorage();

/** Applied hashes spread over 16 partitions per job (Azurite scans a partition to replace an entity). */
describe('applied hashes in partitions', () => {
  const job = { name: 'hash-job', skipUnchanged: true } as Job;
  const message = (i: number) =>
    createQueueMessage({ jobName: job.name, action: JobActionType.NewUpdate, sourceKey: `S-${i}`, targetKey: { id: `S-${i}` }, changeTracker: '1', fields: { v: i } });

  it('writes each job’s hashes to <job>|<bucket>, finds them again and clears them all', async () => {
    const table = await tables().table(APPLIED_HASHES_TABLE);
    const store = new AppliedHashStore(table, new FakeClock());
    const messages = Array.from({ length: 200 }, (_, i) => message(i));
    for (const m of messages) await store.recordApplied(job, m);
    await store.flush();
    const rows = (await table.list()).filter((r) => r.partitionKey.startsWith(`${job.name}|`));
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((r) => r.partitionKey)).size).toBe(16);
    for (const r of rows) expect(r.partitionKey).toBe(`${job.name}|${r.rowKey[0]}`);
    const changed = { ...messages[7], fields: { v: -1 } };
    const unchanged = await store.unchanged(job, [...messages, changed]);
    expect(unchanged.size).toBe(200);
    expect(unchanged.has(changed)).toBe(false);
    // A hash written by an earlier version (partition = job name) is cleared too.
    await table.upsert({ partitionKey: job.name, rowKey: 'legacy', properties: { Hash: 'x' } });
    expect(await clearAppliedHashes(tables(), job.name)).toBe(201);
    expect((await table.list()).filter((r) => r.partitionKey.startsWith(job.name))).toEqual([]);
    await store.close();
  });
});
