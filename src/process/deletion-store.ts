import { createHash } from 'node:crypto';
import { canonicalJson } from '../model/fields-hash';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import { parseWatermarkType, WatermarkValue, type WatermarkType } from '../model/watermark-value';
import type { TableBatchAction, TableRow, TableStore } from '../storage/table-store';

/**
 * Table of deletions applied: partition = sha256 of target connection + entity, `|`, the first
 * hex digit of the row key; row = sha256 of the target key.
 */
export const DELETIONS_TABLE = 'deletions';

/** Remembers the deletions applied per target record, so that an older upsert cannot bring a record back. */
export interface DeletionGuard {
  /**
   * Records that `messages` (Deletes of `job`, one per record) are about to be applied: in as few
   * reads and transactions as the store allows. Call before the deletes.
   */
  recordDeletedMany(job: Job, mapping: Mapping, messages: readonly QueueMessage[]): Promise<void>;
  /**
   * For each message of one job, in order: whether a delete newer than it (compared by `job`'s
   * watermark type) was recorded for its target record; in as few reads as the store allows.
   */
  deletedAfterMany(job: Job, mapping: Mapping, messages: readonly QueueMessage[]): Promise<boolean[]>;
}

/**
 * Deletions on Table Storage. A delete and an upsert of one record travel separately (their own
 * jobs, queues and deliveries), so an upsert detected before the delete can be applied after it
 * — by priority, by concurrency, or when it is redelivered after a crash — and would re-create the
 * deleted record. With this record, such an upsert is outdated (skip-outdated jobs): recorded
 * before the delete is applied and checked after the upsert is written, so that even a delete
 * processed at the same moment is seen, and the record is then deleted again.
 *
 * Each target entity's deletions are spread over 16 partitions: Azurite finds an entity to
 * replace by scanning its partition, so one partition per entity made a large delete job cost
 * O(n²) (the applied hashes had the same problem). Rows an earlier version wrote in the single
 * partition are still read; the newest change tracker of the two places counts.
 */
export class DeletionStore implements DeletionGuard {
  constructor(private readonly table: TableStore) {}

  async recordDeletedMany(job: Job, mapping: Mapping, messages: readonly QueueMessage[]): Promise<void> {
    const type = parseWatermarkType(job.watermark.type);
    if (!type || messages.length === 0) return;
    const keys = messages.map((m) => keysOf(job, mapping, m));
    const stored = await this.storedTrackers(keys, type);
    const newest = new Map<string, { partitionKey: string; rowKey: string; tracker: string }>();
    keys.forEach(({ partitionKey, rowKey }, i) => {
      const tracker = WatermarkValue.canonicalize(type, messages[i].changeTracker);
      const before = newest.get(rowKey)?.tracker ?? stored[i];
      if (before === undefined || WatermarkValue.compare(type, before, tracker) < 0) newest.set(rowKey, { partitionKey, rowKey, tracker });
    });
    const actions: TableBatchAction[] = [...newest.values()].map(({ partitionKey, rowKey, tracker }) => ({
      kind: 'upsert',
      row: { partitionKey, rowKey, properties: { ChangeTracker: tracker, WatermarkType: type, JobName: job.name } },
    }));
    if (actions.length > 0) await this.table.submitBatch(actions);
  }

  async deletedAfterMany(job: Job, mapping: Mapping, messages: readonly QueueMessage[]): Promise<boolean[]> {
    const type = parseWatermarkType(job.watermark.type);
    if (!type || messages.length === 0) return messages.map(() => false);
    const stored = await this.storedTrackers(messages.map((m) => keysOf(job, mapping, m)), type);
    return messages.map((message, i) => stored[i] !== undefined && WatermarkValue.compare(type, message.changeTracker, stored[i]) < 0);
  }

  /** The newest recorded change tracker of each key (undefined: none), from its bucket and the earlier single partition. */
  private async storedTrackers(keys: readonly DeletionKeys[], type: WatermarkType): Promise<Array<string | undefined>> {
    const byPartition = new Map<string, string[]>();
    for (const { partitionKey, rowKey } of keys) byPartition.set(partitionKey, [...(byPartition.get(partitionKey) ?? []), rowKey]);
    // One target entity per call, so one earlier partition: a query per 14 records, like the buckets.
    const [legacyRows, ...bucketReads] = await Promise.all([
      this.table.getMany(keys[0].legacyPartitionKey, keys.map((k) => k.rowKey)),
      ...[...byPartition].map(([partition, rowKeys]) => this.table.getMany(partition, rowKeys)),
    ]);
    // A row key has one bucket, so the buckets' rows can share one map.
    const bucketRows = new Map(bucketReads.flatMap((rows) => [...rows]));
    return keys.map(({ rowKey }) => {
      const [bucket, legacy] = [trackerOf(bucketRows.get(rowKey), type), trackerOf(legacyRows.get(rowKey), type)];
      if (bucket === undefined || legacy === undefined) return bucket ?? legacy;
      return WatermarkValue.compare(type, bucket, legacy) < 0 ? legacy : bucket;
    });
  }
}

interface DeletionKeys {
  partitionKey: string;
  rowKey: string;
  /** The single partition of the entity that versions before the buckets wrote. */
  legacyPartitionKey: string;
}

/** A row's change tracker when it was recorded under the same watermark type. */
function trackerOf(row: TableRow | undefined, type: WatermarkType): string | undefined {
  const stored = row?.properties.ChangeTracker;
  return typeof stored === 'string' && row?.properties.WatermarkType === type ? stored : undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function keysOf(job: Job, mapping: Mapping, message: QueueMessage): DeletionKeys {
  const key = mapping.target.key.map((field) => message.targetKey[field] ?? null);
  const legacyPartitionKey = sha256(`${job.target}\n${mapping.target.entity}`);
  const rowKey = sha256(canonicalJson(key));
  return { partitionKey: `${legacyPartitionKey}|${rowKey[0]}`, rowKey, legacyPartitionKey };
}
