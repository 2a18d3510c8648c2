import { sha256Hex } from '../platform/sha256';
import { canonicalJson } from '../model/fields-hash';
import type { JsonValue } from '../model/queue-message';
import { parseWatermarkType, WatermarkValue, type WatermarkType } from '../model/watermark-value';
import type { Clock } from '../platform/clock';
import type { TableBatchAction, TableRow, TableStore } from './table-store';
import { TableWriteBuffer, type TableWriteBufferOptions } from './table-write-buffer';
import { newestRecorded, type RecordedChange } from '../model/stale-decision';
import { recordHash, WatchedRecords, type WatchedRecordsOptions } from './watched-records';

/**
 * Table of the last change applied per job and target record: partition `<job>|<first hex digit
 * of the row key>`, row = sha256 of the target key (canonical JSON, fields sorted).
 */
export const APPLIED_VERSIONS_TABLE = 'appliedversions';

/** One change as the store sees it: its job, action, target record and change tracker. */
export interface ChangeRef {
  readonly jobName: string;
  readonly action: string;
  readonly targetKey: Readonly<Record<string, JsonValue>>;
  readonly changeTracker: string;
  /**
   * The record's scope across jobs, `<target connection>\n<target entity>` (see `recordHash`):
   * with it, the apply is written only when the record is watched. Default: always written.
   */
  readonly target?: string;
}

/** What the processor and the dead-letter mover ask. */
export interface AppliedVersionReader {
  /**
   * For each change, in order: the newest change recorded as applied to its record since — of
   * its own job, or a delete (for an upsert) or upsert (for a delete) of a job writing the same
   * target entity — whose change tracker is newer than the change's; undefined when none is.
   * Compared by `type` (the job's watermark type), or, where undefined, by the type the row was
   * recorded with. One query per partition for the whole list.
   */
  newerApplied(changes: ReadonlyArray<ChangeRef & { type?: WatermarkType }>): Promise<Array<RecordedChange | undefined>>;
}

/** What the processor records after an apply. */
export interface AppliedVersionRecorder extends AppliedVersionReader {
  /**
   * Buffers `change` as the last applied change of its job and record (written with the next
   * flush) when its record is watched, or becomes watched within the window.
   */
  recordApplied(change: ChangeRef, type: WatermarkType): void;
  /**
   * True while {@link recordApplied} would keep nothing (no record watched, no window of recent
   * applies): the processor then skips building the records of a batch — the common case, a
   * sync in which nothing was set aside. Optional: without it every apply is offered.
   */
  keepsNothing?(): boolean;
  /** Watches the records of messages set aside, before they are settled (see `WatchedRecords`). */
  watch(changes: ReadonlyArray<Pick<ChangeRef, 'targetKey'> & { target: string }>): Promise<void>;
}

export interface AppliedVersionStoreOptions extends TableWriteBufferOptions {
  /**
   * Until this time every apply is recorded, watched or not. A host that took over from one that
   * stopped uncleanly sets it: the batches the dead host held locked come back when their locks
   * expire (redeliveries, nothing set aside, so no record is watched) and must find the newer
   * changes applied meanwhile. Default none.
   */
  recordAllUntil?: Date;
  /** Refresh and window of the watched records (see `WatchedRecords`). */
  watch?: WatchedRecordsOptions;
  /**
   * The jobs of the other action writing the same target entity, with the same watermark type
   * (see `relatedJobsOf`), whose rows count too. Default none (a job's own rows only).
   */
  relatedJobs?: (jobName: string) => readonly string[];
}

/**
 * The last applied change tracker per job and target record, for every NewUpdate and Delete job
 * — of the records that need it: those with a message set aside (retried, parked, dead-lettered,
 * deferred, ignored), which is the only way an old message can come back. Writing every apply
 * cost the crm-erp benchmark a third more host CPU (the table SDK spends ~60 µs per entity); a
 * sync where nothing fails writes no row. Written like the applied hashes — after the apply,
 * buffered, sent as batched transactions per partition, never awaited by the batch. Read only
 * for messages that come back (resubmitted, requeued, retry copies), a query per partition for a
 * whole batch. A record lost in a crash (at most one flush interval) only means that one late
 * message is not recognised as stale, as before this store.
 */
export class AppliedVersionStore implements AppliedVersionRecorder {
  private readonly buffer: TableWriteBuffer<TableBatchAction & { kind: 'upsert' }>;
  private readonly watches: WatchedRecords<AppliedRow> | undefined;

  constructor(
    private readonly table: TableStore,
    /** Drives the periodic flush and the watches; none for a reader (the dead-letter mover), which writes nothing. */
    private readonly clock: Pick<Clock, 'now' | 'every'> | undefined,
    private readonly options: AppliedVersionStoreOptions = {},
  ) {
    this.buffer = new TableWriteBuffer(table, clock, options);
    this.watches = clock ? new WatchedRecords<AppliedRow>(table, clock, options.watch ?? {}, (row) => this.write(row)) : undefined;
  }

  keepsNothing(): boolean {
    return this.watches !== undefined && this.watches.keepsNothing() && !this.recordingAll();
  }

  private recordingAll(): boolean {
    const until = this.options.recordAllUntil;
    return until !== undefined && this.clock !== undefined && this.clock.now().getTime() < until.getTime();
  }

  recordApplied(change: ChangeRef, type: WatermarkType): void {
    const key = canonicalJson(change.targetKey as Record<string, JsonValue>);
    // A compact tuple: up to two windows of applies are held in memory.
    const row: AppliedRow = [change.jobName, change.action, change.changeTracker, type, key];
    if (this.watches && change.target !== undefined && !this.recordingAll() && !this.watches.watchedOrRemember(recordHash(change.target, key), row)) return;
    // Throws, for the caller to log, when the tracker is no value of its type.
    this.write(row);
  }

  /** Buffers the row of an apply; the last applied wins (not the newest): it is what the target holds. */
  private write([jobName, action, changeTracker, type, key]: AppliedRow): void {
    const tracker = WatermarkValue.canonicalize(type, changeTracker);
    const rowKey = sha256Hex(key);
    const partitionKey = `${jobName}|${rowKey[0]}`;
    this.buffer.set(`${partitionKey}\n${rowKey}`, {
      kind: 'upsert',
      row: { partitionKey, rowKey, properties: { ChangeTracker: tracker, WatermarkType: type, Action: action } },
    });
  }

  /** Reads the watches other instances wrote (the timer does it every second). */
  async refreshWatches(): Promise<void> {
    await this.watches?.refresh();
  }

  async watch(changes: ReadonlyArray<Pick<ChangeRef, 'targetKey'> & { target: string }>): Promise<void> {
    await this.watches?.watch(changes.map((c) => recordHash(c.target, canonicalJson(c.targetKey as Record<string, JsonValue>))));
  }

  async newerApplied(changes: ReadonlyArray<ChangeRef & { type?: WatermarkType }>): Promise<Array<RecordedChange | undefined>> {
    if (changes.length === 0) return [];
    // A flush in flight holds rows that are neither pending nor stored yet: read after it.
    await this.buffer.settled();
    const lookups = changes.map((change) => {
      const jobs = [change.jobName, ...(this.options.relatedJobs?.(change.jobName) ?? [])];
      return jobs.map((jobName) => ({ jobName, ...keysOf(jobName, change.targetKey) }));
    });
    const byPartition = new Map<string, Set<string>>();
    for (const keys of lookups) for (const { partitionKey, rowKey } of keys) byPartition.set(partitionKey, (byPartition.get(partitionKey) ?? new Set()).add(rowKey));
    const rows = new Map<string, TableRow>();
    const read = await Promise.all([...byPartition].map(([partition, keys]) => this.table.getMany(partition, [...keys])));
    for (const part of read) for (const row of part.values()) rows.set(`${row.partitionKey}\n${row.rowKey}`, row);
    return changes.map((change, i) => {
      const recorded = lookups[i].flatMap(({ jobName, partitionKey, rowKey }) => {
        const key = `${partitionKey}\n${rowKey}`;
        // What this instance applied and has not written yet is newer than what is stored.
        const row = this.buffer.get(key)?.row ?? rows.get(key);
        const found = row && recordedOf(jobName, row);
        // Another job's upserts do not make an upsert stale (two jobs may write different columns of a record).
        return found && (found.jobName === change.jobName || found.action !== change.action) ? [found] : [];
      });
      return newestRecorded(change, change.type, recorded);
    });
  }

  /** Writes what is buffered; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    return this.buffer.flush();
  }

  async close(): Promise<void> {
    this.watches?.close();
    await this.buffer.close();
  }
}

function recordedOf(jobName: string, row: TableRow): RecordedChange | undefined {
  const { ChangeTracker: tracker, WatermarkType: type, Action: action } = row.properties;
  const parsed = typeof type === 'string' ? parseWatermarkType(type) : undefined;
  if (typeof tracker !== 'string' || !parsed || typeof action !== 'string') return undefined;
  return { jobName, action, changeTracker: tracker, type: parsed };
}

/** An apply as remembered: job, action, change tracker, watermark type, canonical target key. */
type AppliedRow = readonly [string, string, string, WatermarkType, string];

/** The table keys of a job's record. */
function keysOf(jobName: string, targetKey: Readonly<Record<string, JsonValue>>): { partitionKey: string; rowKey: string } {
  const rowKey = sha256Hex(canonicalJson(targetKey as Record<string, JsonValue>));
  return { partitionKey: `${jobName}|${rowKey[0]}`, rowKey };
}
