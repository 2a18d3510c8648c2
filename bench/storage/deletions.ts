/**
 * Recording deletes on Table Storage (Azurite in memory), as the deletion guard does before a
 * batch of deletes is applied: `DeletionStore.recordDeletedMany` in batches of 256, against the
 * way before (a point read and an upsert per record, 32 at a time, one partition per entity) as
 * a baseline built here from the same table calls. Prints records/s for each.
 *
 *   npm run bench:deletions -- [--records 5000] [--batch 256]
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { JobActionType, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { createQueueMessage } from '../../src/model/queue-message';
import { mapLimited } from '../../src/platform/map-limited';
import { DeletionStore } from '../../src/process/deletion-store';
import { startAzurite } from '../../src/storage/azurite';
import { openTableStorage } from '../../src/storage/table-client-factory';
import type { TableStore } from '../../src/storage/table-store';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name}: expected a positive integer, got ${process.argv[i + 1]}`);
  return value;
};

const job = { name: 'bench-deletes', target: 'erp', watermark: { type: 'number', field: 'v' } } as Job;
const mapping = { name: 'bench', target: { entity: 'customers', key: ['id'] } } as Mapping;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The per-record way: read, then upsert, into the entity's one partition. */
async function perRecord(table: TableStore, keys: readonly string[], batch: number): Promise<void> {
  const partitionKey = sha256(`${job.target}\n${mapping.target.entity}`);
  for (let i = 0; i < keys.length; i += batch) {
    await mapLimited(keys.slice(i, i + batch), 32, async (key) => {
      const rowKey = sha256(JSON.stringify([key]));
      await table.get(partitionKey, rowKey);
      await table.upsert({ partitionKey, rowKey, properties: { ChangeTracker: '5', WatermarkType: 'number', JobName: job.name } });
    });
  }
}

async function main(): Promise<void> {
  const records = flag('records', 5000);
  const batch = flag('batch', 256);
  const azurite = await startAzurite({ port: 0 });
  const storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
  try {
    const keys = Array.from({ length: records }, (_, i) => `C-${i}`);
    const messages = keys.map((id) =>
      createQueueMessage({ jobName: job.name, action: JobActionType.Delete, sourceKey: id, targetKey: { id }, changeTracker: '5', fields: {} }),
    );
    console.log(`node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${records} deletes in batches of ${batch}`);
    let started = Date.now();
    await perRecord(await storage.table(`delbase${Date.now()}`), keys, batch);
    const baseMs = Date.now() - started;
    const store = new DeletionStore(await storage.table(`delnow${Date.now()}`));
    started = Date.now();
    for (let i = 0; i < records; i += batch) await store.recordDeletedMany(job, mapping, messages.slice(i, i + batch));
    const nowMs = Date.now() - started;
    const rate = (ms: number) => Math.round((records / ms) * 1000).toLocaleString('en-US');
    console.log(`read + upsert per record, one partition: ${(baseMs / 1000).toFixed(1)} s, ${rate(baseMs)} records/s`);
    console.log(`recordDeletedMany, 16 partitions:        ${(nowMs / 1000).toFixed(1)} s, ${rate(nowMs)} records/s`);
  } finally {
    await storage.close();
    await azurite.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
