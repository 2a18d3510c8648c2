import { createHash } from 'node:crypto';
import type { Clock } from '../platform/clock';
import { appliedFieldsHash } from '../model/fields-hash';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import type { TableBatchAction, TableRow, TableStore } from '../storage/table-store';
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
export function appliedHashPartition(jobName: string, rowKey: string): string {
  return `${jobName}|${rowKey[0]}`;
}

/** Every partition that can hold `jobName`'s hashes, including the one partition earlier versions wrote. */
export function appliedHashPartitions(jobName: string): string[] {
  return [jobName, ...[...BUCKETS].map((bucket) => `${jobName}|${bucket}`)];
}

export interface AppliedHashStoreOptions {
  /** Pending writes are flushed at this size (sent as one transaction per partition). Default 400. */
  flushAt?: number;
  /** And at least this often, in ms. Default 1,000. */
  flushEveryMs?: number;
}

/**
 * What was last applied per record, for `skipUnchanged` jobs (issue: applied hashes). The
 * processor records after a successful apply; writes are buffered and sent as batched
 * transactions — losing a buffered hash in a crash only means one change is sent again, never
 * that one is skipped. Detection asks which changes hash to what was last applied.
 */
export class AppliedHashStore implements AppliedHashRecorder, UnchangedCheck {
  private pending = new Map<string, TableBatchAction>();
  private readonly stopTimer: () => void;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: TableStore,
    clock: Clock,
    private readonly options: AppliedHashStoreOptions = {},
  ) {
    this.stopTimer = clock.every(options.flushEveryMs ?? 1_000, () => void this.flush().catch(() => undefined));
  }

  async recordApplied(job: Job, message: QueueMessage): Promise<void> {
    if (!job.skipUnchanged) return;
    const rowKey = rowKeyOf(message.sourceKey);
    this.pending.set(`${job.name}\n${rowKey}`, {
      kind: 'upsert',
      row: { partitionKey: appliedHashPartition(job.name, rowKey), rowKey, properties: { SourceKey: message.sourceKey, Hash: appliedFieldsHash(message) } },
    });
    // Not awaited: a processed batch must not wait for the table, and a hash lost in a crash only
    // means one change is sent again. A failed write is retried with the next flush's rows.
    if (this.pending.size >= (this.options.flushAt ?? 400)) void this.flush().catch(() => undefined);
  }

  async forget(job: Job, message: QueueMessage): Promise<void> {
    if (!job.skipUnchanged) return;
    const rowKey = rowKeyOf(message.sourceKey);
    this.pending.delete(`${job.name}\n${rowKey}`);
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
    this.flushing = this.flushing.catch(() => undefined).then(async () => {
      if (this.pending.size === 0) return;
      const taken = this.pending;
      this.pending = new Map();
      try {
        await this.table.submitBatch([...taken.values()]);
      } catch (err) {
        // Back into the buffer unless a newer hash of the same record came meanwhile: the next flush retries them.
        for (const [key, action] of taken) if (!this.pending.has(key)) this.pending.set(key, action);
        throw err;
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    this.stopTimer();
    await this.flush();
  }
}

function rowKeyOf(sourceKey: string): string {
  return createHash('sha256').update(sourceKey).digest('hex');
}
