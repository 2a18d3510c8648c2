import type Database from 'better-sqlite3';
import type { TransactionBatcher } from './transaction-batcher';

/** Expired ids are purged at most this often (clock time). */
const PURGE_INTERVAL_MS = 60_000;

interface LogRow {
  id: number;
  queue_id: number;
  message_id: string;
  until: number;
}

/**
 * Duplicate detection: which `messageId`s each queue has seen within its window.
 *
 * The shared truth is an append-only table (`duplicate_log`); each process keeps an in-memory
 * map replayed from it. A B-tree keyed by message id would take a random leaf page per send,
 * i.e. most of the index rewritten to the WAL per transaction: it halved send throughput
 * (measured). Appending is sequential, and lookups hit memory. Memory is bounded by what the
 * queues see within their windows (~100 bytes an id).
 *
 * Cross-process correctness rests on the write lock: {@link beginWrite} runs inside the
 * sender's `BEGIN IMMEDIATE` transaction, replays every row committed by other processes since
 * the last replay, and no other process can append until this transaction ends. Ids added in a
 * transaction become visible to later transactions only after it commits ({@link commit}); a
 * rollback forgets them ({@link rollback}), so a failed send never marks its ids as seen.
 */
export class DuplicateIndex {
  /** Committed ids: queue id + message id → end of its window (epoch ms). */
  private readonly seen = new Map<string, number>();
  /** Ids appended by the open transaction. */
  private readonly pending = new Map<string, number>();
  /** The last log row reflected in `seen`. */
  private lastId = 0;
  private pendingLastId = 0;
  private writing = false;
  private lastPurge = -Infinity;
  private readonly replay: Database.Statement<[number], LogRow>;
  private readonly append: Database.Statement<[number, string, number]>;
  private readonly purge: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    this.replay = db.prepare('SELECT id, queue_id, message_id, until FROM duplicate_log WHERE id > ? ORDER BY id');
    this.append = db.prepare('INSERT INTO duplicate_log (queue_id, message_id, until) VALUES (?, ?, ?)');
    this.purge = db.prepare('DELETE FROM duplicate_log WHERE until <= ?');
  }

  /**
   * Inside an operation of `batcher`, before the first {@link remember} of the transaction:
   * replays other processes' ids once, ties the in-memory state to the transaction's outcome,
   * and purges expired ids at most once a minute (clock time).
   */
  join(batcher: TransactionBatcher, now: number): void {
    if (this.writing) return;
    this.beginWrite();
    batcher.afterCommit(() => this.commit());
    batcher.afterRollback(() => this.rollback());
    if (now - this.lastPurge >= PURGE_INTERVAL_MS) {
      this.forget(now);
      this.lastPurge = now;
    }
  }

  /**
   * Once per write transaction, before the first {@link remember}: replays what other
   * processes committed. Every row read here is committed, as this transaction appended none yet.
   */
  private beginWrite(): void {
    for (const row of this.replay.iterate(this.lastId)) {
      const key = keyOf(row.queue_id, row.message_id);
      if ((this.seen.get(key) ?? 0) < row.until) this.seen.set(key, row.until);
      this.lastId = row.id;
    }
    this.writing = true;
  }

  /**
   * Records `messageId` for the queue unless it was seen within the window; false for a
   * duplicate (which the caller drops).
   */
  remember(queueId: number, messageId: string, now: number, windowMs: number): boolean {
    const key = keyOf(queueId, messageId);
    if ((this.pending.get(key) ?? this.seen.get(key) ?? 0) > now) return false;
    const until = now + windowMs;
    this.pendingLastId = Number(this.append.run(queueId, messageId, until).lastInsertRowid);
    this.pending.set(key, until);
    return true;
  }

  /** The transaction committed: its ids count as seen from now on. */
  private commit(): void {
    for (const [key, until] of this.pending) this.seen.set(key, until);
    if (this.pendingLastId > this.lastId) this.lastId = this.pendingLastId;
    this.rollback();
  }

  /** The transaction rolled back: its ids were never sent. */
  private rollback(): void {
    this.pending.clear();
    this.pendingLastId = 0;
    this.writing = false;
  }

  /** Forgets ids whose window has passed, in memory and on disk (inside a write transaction). */
  private forget(now: number): void {
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
    this.purge.run(now);
  }
}

function keyOf(queueId: number, messageId: string): string {
  return `${queueId}\u0000${messageId}`;
}
