import { createHash } from 'node:crypto';
import type { Clock } from '../platform/clock';
import { appliedFieldsHash } from '../model/fields-hash';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import type { TableRow, TableStore } from '../storage/table-store';
import { TableWriteBuffer, type TableWriteBufferOptions } from '../storage/table-write-buffer';
import type { UnchangedCheck } from '../model/unchanged-check';
import type { AppliedHashRecorder } from './processing-dependencies';

/** Table of applied hashes (partition = job name and bucket, row = sha256 of the source key). */
export const APPLIED_HASHES_TABLE = 'appliedhashes';

/**
 * Each job's hashes are spread over 16 partitions, `<job>|<first hex digit of the row key>`:
 * Azurite finds an entity to replace by scanning the entities of its partition (its index covers
 * the partition key only), so one partition per job made every write cost as much as the job's
 * records — 93 of 113 s of Azurite's CPU in the crm-erp benchmark. Sixteen keep a page's reads
 * to about one query per partition.
 */
const BUCKETS = '0123456789abcdef';

/** The partition of a row key of `jobName`. */
function appliedHashPartition(jobName: string, rowKey: string): string {
  return `${jobName}|${rowKey[0]}`;
}

/** Every partition that can hold `jobName`'s hashes, including the one partition earlier versions wrote. */
export function appliedHashPartitions(jobName: string): string[] {
  return [jobName, ...[...BUCKETS].map((bucket) => `${jobName}|${bucket}`)];
}

/** When buffered hashes are written: at 400 pending or every second by default. */
export type AppliedHashStoreOptions = TableWriteBufferOptions;

/**
 * What was last applied per record, for `skipUnchanged` jobs (issue: applied hashes). The
 * processor records after a successful apply; writes are buffered and sent as batched
 * transactions — losing a buffered hash in a crash only means one change is sent again, never
 * that one is skipped. Detection asks which changes hash to what was last applied.
 */
export class AppliedHashStore implements AppliedHashRecorder, UnchangedCheck {
  private readonly buffer: TableWriteBuffer;

  constructor(
    private readonly table: TableStore,
    clock: Clock,
    options: AppliedHashStoreOptions = {},
  ) {
    this.buffer = new TableWriteBuffer(table, clock, options);
  }

  async recordApplied(job: Job, message: QueueMessage): Promise<void> {
    if (!job.skipUnchanged) return;
    const rowKey = rowKeyOf(message.sourceKey);
    // Not awaited: a processed batch must not wait for the table, and a hash lost in a crash only
    // means one change is sent again. A failed write is retried with the next flush's rows.
    this.buffer.set(`${job.name}\n${rowKey}`, {
      kind: 'upsert',
      row: { partitionKey: appliedHashPartition(job.name, rowKey), rowKey, properties: { SourceKey: message.sourceKey, Hash: appliedFieldsHash(message) } },
    });
  }

  async forget(job: Job, message: QueueMessage): Promise<void> {
    if (!job.skipUnchanged) return;
    const rowKey = rowKeyOf(message.sourceKey);
    this.buffer.delete(`${job.name}\n${rowKey}`);
    await this.flush();
    await this.table.delete(appliedHashPartition(job.name, rowKey), rowKey);
  }

  async unchanged(job: Job, messages: QueueMessage[]): Promise<Set<QueueMessage>> {
    const result = new Set<QueueMessage>();
    if (messages.length === 0) return result;
    // A query per partition and 14 records instead of a point read each.
    const byPartition = new Map<string, string[]>();
    for (const message of messages) {
      const rowKey = rowKeyOf(message.sourceKey);
      const partition = appliedHashPartition(job.name, rowKey);
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), rowKey]);
    }
    const rows = new Map<string, TableRow>();
    const found = await Promise.all([...byPartition].map(([partition, keys]) => this.table.getMany(partition, keys)));
    for (const part of found) for (const [rowKey, row] of part) rows.set(rowKey, row);
    for (const message of messages) {
      if (rows.get(rowKeyOf(message.sourceKey))?.properties.Hash === appliedFieldsHash(message)) result.add(message);
    }
    return result;
  }

  /** Writes what is buffered; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    return this.buffer.flush();
  }

  async close(): Promise<void> {
    await this.buffer.close();
  }
}

function rowKeyOf(sourceKey: string): string {
  return createHash('sha256').update(sourceKey).digest('hex');
}
