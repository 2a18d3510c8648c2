import { sha256Hex } from '../platform/sha256';
import type { Clock } from '../platform/clock';
import type { TableStore } from './table-store';

/**
 * Watched records live in the applied-versions table in one partition per minute of watching,
 * `watch|<yyyy-mm-ddThh:mm>` (row = record hash): an instance reads the current and the last
 * minute every second, and the whole table only at start and once an hour. (A job's partitions
 * end in `|<hex digit>`, so none can look like one of these.)
 */
const WATCH_PARTITION = /^watch\|\d{4}-\d\d-\d\dT\d\d:\d\d$/;

/** The watch partition of a time. */
function watchPartition(at: Date): string {
  return `watch|${at.toISOString().slice(0, 16)}`;
}

/** How often the whole table is read (new instances' start, expired watches). */
const FULL_READ_EVERY_MS = 60 * 60 * 1000;

/** How long a watch is kept: a set-aside message lives 14 days at most; a day more for the mover's copies. */
const WATCH_KEEP_MS = 15 * 24 * 60 * 60 * 1000;

export interface WatchedRecordsOptions {
  /** How often the watches other instances wrote are read (one query). Default 1,000 ms. */
  refreshEveryMs?: number;
  /**
   * How long (at least; at most twice as long) this instance remembers what it applied to
   * records nobody watched yet, so that a watch written meanwhile by another instance still gets
   * the record of it. Default 5,000 ms (instances read the watches every second; a retry copy
   * comes back 4 s after its failure at the earliest). 0 where one instance processes (the local
   * host): it knows every watch at once, and holding the applies cost the crm-erp benchmark 25 MB
   * of peak memory and 5 % of its host CPU.
   */
  windowMs?: number;
}

/** The identity of a target record across jobs: sha256 of the job's target connection and entity and the canonical key. */
export function recordHash(target: string, canonicalKey: string): string {
  return sha256Hex(`${target}\n${canonicalKey}`);
}

/**
 * The records with a message set aside (retried, parked, dead-lettered, deferred, ignored): only
 * their applies are written to the table, so that a sync where nothing fails writes nothing more
 * than before. Watches are written before the set-aside message is settled; this instance knows
 * them at once, the others at their next refresh. What was applied meanwhile to a record
 * watched later is kept for `windowMs` and written when the watch becomes known.
 */
export class WatchedRecords<T> {
  private readonly watched = new Set<string>();
  /**
   * Recent applies to unwatched records, record hash → what to write (latest last), in two
   * generations swapped every `windowMs`: an apply is kept between one and two windows, at the
   * cost of a map operation (no clock read, no walk over the entries).
   */
  private recent = new Map<string, T[]>();
  private previous = new Map<string, T[]>();
  private readonly stopTimer: () => void;
  private refreshing: Promise<void> | undefined;
  private rotateAt: number;
  private fullReadAt = 0;

  constructor(
    private readonly table: TableStore,
    private readonly clock: Pick<Clock, 'now' | 'every'>,
    private readonly options: WatchedRecordsOptions,
    /** Writes a remembered apply once its record is watched. */
    private readonly write: (item: T) => void,
  ) {
    this.rotateAt = clock.now().getTime() + (options.windowMs ?? 5_000);
    this.stopTimer = clock.every(options.refreshEveryMs ?? 1_000, () => {
      this.rotate();
      void this.refresh().catch(() => undefined);
    });
    void this.refresh().catch(() => undefined);
  }

  /** True while no record is watched and no window is kept: {@link watchedOrRemember} would be false for every record. */
  keepsNothing(): boolean {
    return this.watched.size === 0 && this.options.windowMs === 0;
  }

  /** Whether `hash` is watched; if not, `item` is kept for the window in case it becomes watched. */
  watchedOrRemember(hash: string, item: T): boolean {
    if (this.watched.has(hash)) return true;
    if (this.options.windowMs === 0) return false;
    const list = this.recent.get(hash);
    if (list) list.push(item);
    else this.recent.set(hash, [item]);
    return false;
  }

  /** Watches these records: written (one transaction) before the caller settles their messages. */
  async watch(hashes: readonly string[]): Promise<void> {
    const fresh = [...new Set(hashes)].filter((h) => !this.watched.has(h));
    if (fresh.length === 0) return;
    this.adopt(fresh);
    const now = this.clock.now();
    const partitionKey = watchPartition(now);
    await this.table.submitBatch(fresh.map((rowKey) => ({ kind: 'upsert', row: { partitionKey, rowKey, properties: { At: now.toISOString() } } })));
  }

  /**
   * Reads the watches other instances wrote: the current and the last minute's, or, at start and
   * once an hour, all of them (then the expired ones are deleted).
   */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const now = this.clock.now();
        if (now.getTime() >= this.fullReadAt) {
          const rows = (await this.table.list()).filter((r) => WATCH_PARTITION.test(r.partitionKey));
          const expired = now.getTime() - WATCH_KEEP_MS;
          const old = rows.filter((r) => typeof r.properties.At === 'string' && Date.parse(r.properties.At) < expired);
          this.adopt(rows.filter((r) => !old.includes(r)).map((r) => r.rowKey));
          this.fullReadAt = now.getTime() + FULL_READ_EVERY_MS;
          if (old.length > 0) await this.table.submitBatch(old.map((r) => ({ kind: 'delete', partitionKey: r.partitionKey, rowKey: r.rowKey })));
          return;
        }
        const minutes = [watchPartition(new Date(now.getTime() - 60_000)), watchPartition(now)];
        const rows = await Promise.all(minutes.map((p) => this.table.queryPartition(p)));
        this.adopt(rows.flat().map((r) => r.rowKey));
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  close(): void {
    this.stopTimer();
  }

  /** Marks records watched and writes what was applied to them within the window. */
  private adopt(hashes: readonly string[]): void {
    for (const hash of hashes) {
      if (this.watched.has(hash)) continue;
      this.watched.add(hash);
      // Older generation first: the last applied is written last and wins.
      const applied = [...(this.previous.get(hash) ?? []), ...(this.recent.get(hash) ?? [])];
      this.previous.delete(hash);
      this.recent.delete(hash);
      for (const item of applied) {
        try {
          this.write(item);
        } catch {
          // A change tracker that is no value of its type cannot be ordered: nothing to guard with.
        }
      }
    }
  }

  /** Drops the older generation of recent applies once a window has passed. */
  private rotate(): void {
    const now = this.clock.now().getTime();
    if (now < this.rotateAt) return;
    this.previous = this.recent;
    this.recent = new Map();
    this.rotateAt = now + (this.options.windowMs ?? 5_000);
  }
}
