import type Database from 'better-sqlite3';
import { isBusError } from '../message-bus';
import { toBusError } from './sqlite-errors';

/** Pages a transaction rewrites besides the rows it adds (table, index and tree pages). */
const PAGES_PER_TRANSACTION = 3;

interface PendingOp {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * Runs the write operations queued during one event-loop turn in one `BEGIN IMMEDIATE`
 * transaction, and settles their promises only after COMMIT: a resolved call is on disk.
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

  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollbackStatement: Database.Statement;

  private written = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    /** Called after each COMMIT with an estimate of the bytes it wrote to the WAL. */
    private readonly onCommit: (bytes: number) => void = () => undefined,
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
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      this.begin.run();
      for (const op of ops) {
        try {
          outcomes.push({ ok: true, value: op.run() });
        } catch (err) {
          if (!isBusError(err) || err.code === 'Corrupt') throw err;
          outcomes.push({ ok: false, value: err });
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
    ops.forEach((op, i) => (outcomes[i].ok ? op.resolve(outcomes[i].value) : op.reject(outcomes[i].value)));
    for (const hook of hooks) hook();
  }

  private rollback(): void {
    try {
      this.rollbackStatement.run();
    } catch {
      // SQLite may already have rolled back (e.g. after SQLITE_FULL); nothing more to undo.
    }
  }
}
