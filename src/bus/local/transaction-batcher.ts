import type Database from 'better-sqlite3';
import { isBusError } from '../message-bus';
import type { CommitSync } from './commit-sync';
import { toBusError } from './sqlite-errors';

/** Pages a transaction rewrites besides the rows it adds (table, index and tree pages). */
const PAGES_PER_TRANSACTION = 3;

interface PendingOp {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

interface Outcome {
  ok: boolean;
  value: unknown;
  /** Settled only once a sync started after COMMIT is done ({@link TransactionBatcher.durable}). */
  durable: boolean;
}

/**
 * Runs the write operations queued during one event-loop turn in one `BEGIN IMMEDIATE`
 * transaction, and settles their promises only after COMMIT: a resolved call is in the file
 * (and, for an operation that asked with {@link durable} under `synchronous: 'FULL'`, on disk).
 *
 * One transaction per turn instead of one per call is what makes the bus fast (a commit costs
 * far more than a row), while keeping every call's own semantics.
 *
 * An operation must check its preconditions before it writes: when it throws a BusError only
 * its own promise rejects and the others commit. Any other error (SQLite's), or a BusError
 * `Corrupt`, rolls the whole transaction back and rejects every operation in it.
 */
export class TransactionBatcher {
  private pending: PendingOp[] = [];
  private scheduled = false;
  private committed: Array<() => void> = [];
  private rolledBack: Array<() => void> = [];
  /** Whether the operation running now asked for {@link durable}. */
  private wantsDurable = false;
  /** The last sync waited for, settled either way (for {@link settled}). */
  private lastSync: Promise<void> = Promise.resolve();

  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollbackStatement: Database.Statement;

  private written = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    /** Called after each COMMIT with an estimate of the bytes it wrote to the WAL. */
    private readonly onCommit: (bytes: number) => void = () => undefined,
    /** With `synchronous: 'FULL'`: what {@link durable} operations wait for; without, none do. */
    private readonly sync?: CommitSync,
  ) {
    // Prepared once: `db.exec` would parse these three on every transaction.
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollbackStatement = db.prepare('ROLLBACK');
  }

  /** Queues `op` for the next transaction; resolves with its result after COMMIT. */
  run<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Inside an operation: runs `fn` once the transaction has committed (e.g. to wake receivers). */
  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  /** Inside an operation: counts `bytes` of row data written (for the checkpointer's estimate). */
  wrote(bytes: number): void {
    this.written += bytes;
  }

  /**
   * Inside an operation: its promise settles only after a sync that started after COMMIT (with
   * a {@link CommitSync}; else at COMMIT as the others), and rejects with the sync's BusError.
   * Only for writes whose loss on power failure at-least-once delivery would not redo (which
   * those are: `commit-sync.ts`); the others in the transaction do not wait.
   */
  durable(): void {
    this.wantsDurable = true;
  }

  /** Resolves once the syncs waited for so far are done (failed or not), e.g. before closing. */
  settled(): Promise<void> {
    return this.lastSync;
  }

  /** Inside an operation: runs `fn` if the transaction rolls back (to undo in-memory state). */
  afterRollback(fn: () => void): void {
    this.rolledBack.push(fn);
  }

  /** Commits whatever is queued now, e.g. before closing the database. */
  flush(): void {
    this.scheduled = false;
    const ops = this.pending;
    if (ops.length === 0) return;
    this.pending = [];
    this.committed = [];
    this.rolledBack = [];
    const outcomes: Outcome[] = [];
    try {
      this.begin.run();
      for (const op of ops) {
        this.wantsDurable = false;
        try {
          const value = op.run();
          outcomes.push({ ok: true, value, durable: this.wantsDurable && this.sync !== undefined });
        } catch (err) {
          if (!isBusError(err) || err.code === 'Corrupt') throw err;
          outcomes.push({ ok: false, value: err, durable: false });
        }
      }
      this.commit.run();
    } catch (err) {
      this.written = 0;
      if (this.db.inTransaction) this.rollback();
      this.committed = [];
      for (const undo of this.rolledBack) undo();
      this.rolledBack = [];
      const busError = toBusError(err, this.file);
      for (const op of ops) op.reject(busError);
      return;
    }
    this.onCommit(PAGES_PER_TRANSACTION * 4096 + this.written);
    this.written = 0;
    const hooks = this.committed;
    this.committed = [];
    this.rolledBack = [];
    const waiting: Array<{ op: PendingOp; value: unknown }> = [];
    ops.forEach((op, i) => {
      const { ok, value, durable } = outcomes[i];
      if (durable) waiting.push({ op, value });
      else if (ok) op.resolve(value);
      else op.reject(value);
    });
    if (this.sync && waiting.length > 0) this.settleWhenSynced(this.sync, waiting);
    // Receivers are woken at once: the commit is visible to every connection already, synced or not.
    for (const hook of hooks) hook();
  }

  /** One wait for the whole transaction: the sync it ends with starts after COMMIT, so covers all of it. */
  private settleWhenSynced(sync: CommitSync, waiting: Array<{ op: PendingOp; value: unknown }>): void {
    this.lastSync = sync().then(
      () => waiting.forEach(({ op, value }) => op.resolve(value)),
      (err: unknown) => waiting.forEach(({ op }) => op.reject(err)),
    );
  }

  private rollback(): void {
    try {
      this.rollbackStatement.run();
    } catch {
      // SQLite may already have rolled back (e.g. after SQLITE_FULL); nothing more to undo.
    }
  }
}
