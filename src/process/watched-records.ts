import { createHash } from 'node:crypto';
import { canonicalJson } from '../model/fields-hash';
import type { JsonValue } from '../model/queue-message';
import type { Clock } from '../platform/clock';
import type { TableStore } from '../storage/table-store';

/** Partition of the watched records in the applied-versions table (row = record hash). */
export const WATCH_PARTITION = 'watch';

/** How long a watch is kept: a set-aside message lives 14 days at most; a day more for the mover's copies. */
const WATCH_KEEP_MS = 15 * 24 * 60 * 60 * 1000;

export interface WatchedRecordsOptions {
  /** How often the watches other instances wrote are read (one query). Default 1,000 ms. */
  refreshEveryMs?: number;
  /**
   * How long this instance remembers what it applied to records nobody watched yet, so that a
   * watch written meanwhile by another instance still gets the record of it. Default 10,000 ms
   * (a retry copy comes back 4 s after its failure at the earliest).
   */
  windowMs?: number;
}

/** The identity of a target record across jobs: sha256 of the job's target connection and entity and the key. */
export function recordHash(target: string, targetKey: Readonly<Record<string, JsonValue>>): string {
  return createHash('sha256').update(target).update('\n').update(canonicalJson(targetKey as Record<string, JsonValue>)).digest('hex');
}

/**
 * The records with a message set aside (retried, parked, dead-lettered, deferred, ignored): only
 * their applies are written to the table, so that a sync where nothing fails writes nothing more
 * than before. Watches are written before the set-aside message is settled; this instance knows
 * them at once, the others at their next refresh. What was applied meanwhile to a record
 * watched later is kept for `windowMs` and written when the watch becomes known.
 */
export class WatchedRecords {
  private readonly watched = new Set<string>();
  /** Recent applies to unwatched records: record hash → writers of their rows (latest last). */
  private recent = new Map<string, Array<{ at: number; write: () => void }>>();
  private readonly stopTimer: () => void;
  private refreshing: Promise<void> | undefined;
  private pruneAt = 0;

  constructor(
    private readonly table: TableStore,
    private readonly clock: Pick<Clock, 'now' | 'every'>,
    private readonly options: WatchedRecordsOptions = {},
  ) {
    this.stopTimer = clock.every(options.refreshEveryMs ?? 1_000, () => void this.refresh().catch(() => undefined));
    void this.refresh().catch(() => undefined);
  }

  /** Whether `hash` is watched; if not, `write` is kept for the window in case it becomes watched. */
  watchedOrRemember(hash: string, write: () => void): boolean {
    if (this.watched.has(hash)) return true;
    const now = this.clock.now().getTime();
    const list = this.recent.get(hash);
    if (list) list.push({ at: now, write });
    else this.recent.set(hash, [{ at: now, write }]);
    if (now >= this.pruneAt) this.prune(now);
    return false;
  }

  /** Watches these records: written (one transaction) before the caller settles their messages. */
  async watch(hashes: readonly string[]): Promise<void> {
    const fresh = [...new Set(hashes)].filter((h) => !this.watched.has(h));
    if (fresh.length === 0) return;
    this.adopt(fresh);
    const at = this.clock.now().toISOString();
    await this.table.submitBatch(fresh.map((rowKey) => ({ kind: 'upsert', row: { partitionKey: WATCH_PARTITION, rowKey, properties: { At: at } } })));
  }

  /** Reads the watches (those of other instances), and drops the expired ones. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const rows = await this.table.queryPartition(WATCH_PARTITION);
        const expired = this.clock.now().getTime() - WATCH_KEEP_MS;
        const old = rows.filter((r) => typeof r.properties.At === 'string' && Date.parse(r.properties.At) < expired);
        this.adopt(rows.filter((r) => !old.includes(r)).map((r) => r.rowKey));
        if (old.length > 0) await this.table.submitBatch(old.map((r) => ({ kind: 'delete', partitionKey: r.partitionKey, rowKey: r.rowKey })));
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
      const applied = this.recent.get(hash);
      this.recent.delete(hash);
      for (const { write } of applied ?? []) write();
    }
  }

  private prune(now: number): void {
    const before = now - (this.options.windowMs ?? 10_000);
    for (const [hash, list] of this.recent) {
      const kept = list.filter((e) => e.at >= before);
      if (kept.length === 0) this.recent.delete(hash);
      else if (kept.length !== list.length) this.recent.set(hash, kept);
    }
    // Pruning walks the map: at most every tenth of the window.
    this.pruneAt = now + (this.options.windowMs ?? 10_000) / 10;
  }
}
