import { createHash } from 'node:crypto';
import { canonicalJson } from '../model/fields-hash';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import { parseWatermarkType, WatermarkValue } from '../model/watermark-value';
import type { TableStore } from '../storage/table-store';

/** Table of deletions applied (partition = sha256 of target connection + entity, row = sha256 of the target key). */
export const DELETIONS_TABLE = 'deletions';

/** Remembers the deletions applied per target record, so that an older upsert cannot bring a record back. */
export interface DeletionGuard {
  /** Records that `message` (a Delete of `job`) is about to be applied. Call before the delete. */
  recordDeleted(job: Job, mapping: Mapping, message: QueueMessage): Promise<void>;
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
 */
export class DeletionStore implements DeletionGuard {
  constructor(private readonly table: TableStore) {}

  async recordDeleted(job: Job, mapping: Mapping, message: QueueMessage): Promise<void> {
    const type = parseWatermarkType(job.watermark.type);
    if (!type) return;
    const { partitionKey, rowKey } = keysOf(job, mapping, message);
    const existing = await this.table.get(partitionKey, rowKey);
    const stored = existing?.properties.ChangeTracker;
    if (typeof stored === 'string' && existing?.properties.WatermarkType === type && WatermarkValue.compare(type, stored, message.changeTracker) >= 0) return;
    await this.table.upsert({ partitionKey, rowKey, properties: { ChangeTracker: WatermarkValue.canonicalize(type, message.changeTracker), WatermarkType: type, JobName: job.name } });
  }

  async deletedAfterMany(job: Job, mapping: Mapping, messages: readonly QueueMessage[]): Promise<boolean[]> {
    const type = parseWatermarkType(job.watermark.type);
    if (!type || messages.length === 0) return messages.map(() => false);
    const keys = messages.map((m) => keysOf(job, mapping, m));
    // One target entity, so one partition for the whole group: one query per 14 records.
    const rows = await this.table.getMany(keys[0].partitionKey, keys.map((k) => k.rowKey));
    return messages.map((message, i) => {
      const row = rows.get(keys[i].rowKey);
      const stored = row?.properties.ChangeTracker;
      if (typeof stored !== 'string' || row?.properties.WatermarkType !== type) return false;
      return WatermarkValue.compare(type, message.changeTracker, stored) < 0;
    });
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function keysOf(job: Job, mapping: Mapping, message: QueueMessage): { partitionKey: string; rowKey: string } {
  const key = mapping.target.key.map((field) => message.targetKey[field] ?? null);
  return { partitionKey: sha256(`${job.target}\n${mapping.target.entity}`), rowKey: sha256(canonicalJson(key)) };
}
