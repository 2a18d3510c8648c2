import { createHash } from 'node:crypto';
import type { Clock } from '../model/clock';
import { appliedFieldsHash } from '../model/fields-hash';
import type { Job } from '../model/job';
import type { QueueMessage } from '../model/queue-message';
import type { TableBatchAction, TableStore } from '../storage/table-store';
import type { UnchangedCheck } from '../detect/detection-dependencies';
import type { AppliedHashRecorder } from './processing-dependencies';

/** Table of applied hashes (partition = job name, row = sha256 of the source key). */
export const APPLIED_HASHES_TABLE = 'appliedhashes';

export interface AppliedHashStoreOptions {
  /** Pending writes are flushed at this size (one transaction holds at most 100). Default 100. */
  flushAt?: number;
  /** And at least this often, in ms. Default 1,000. */
  flushEveryMs?: number;
  /** Parallel point reads when checking a page. Default 16. */
  readConcurrency?: number;
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
      row: { partitionKey: job.name, rowKey, properties: { SourceKey: message.sourceKey, Hash: appliedFieldsHash(message) } },
    });
    if (this.pending.size >= (this.options.flushAt ?? 100)) await this.flush();
  }

  async forget(job: Job, message: QueueMessage): Promise<void> {
    if (!job.skipUnchanged) return;
    const rowKey = rowKeyOf(message.sourceKey);
    this.pending.delete(`${job.name}\n${rowKey}`);
    await this.flush();
    await this.table.delete(job.name, rowKey);
  }

  async unchanged(job: Job, messages: QueueMessage[]): Promise<Set<QueueMessage>> {
    const result = new Set<QueueMessage>();
    const concurrency = this.options.readConcurrency ?? 16;
    for (let i = 0; i < messages.length; i += concurrency) {
      const slice = messages.slice(i, i + concurrency);
      const rows = await Promise.all(slice.map((m) => this.table.get(job.name, rowKeyOf(m.sourceKey))));
      slice.forEach((message, j) => {
        if (rows[j]?.properties.Hash === appliedFieldsHash(message)) result.add(message);
      });
    }
    return result;
  }

  /** Writes what is buffered; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(async () => {
      if (this.pending.size === 0) return;
      const actions = [...this.pending.values()];
      this.pending = new Map();
      await this.table.submitBatch(actions);
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
