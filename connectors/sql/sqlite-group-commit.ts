import type Database from 'better-sqlite3';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface PendingWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for one SQLite connection: the writes issued within one event-loop turn (the
 * processors apply many messages concurrently) run in one `BEGIN IMMEDIATE … COMMIT`, each in its
 * own savepoint, and every caller's promise settles only after that COMMIT. A commit writes the
 * dirtied pages to the WAL and (with `synchronous = FULL`, the default) fsyncs: one commit per
 * message made the target's writes most of a message's cost.
 *
 * Isolation is kept: a write that fails rolls back to its savepoint, and after the COMMIT it runs
 * once more on its own, so it fails only if it fails against everything committed by then, as
 * with one commit per write (a child written before its parent in the same group succeeds then;
 * without that rerun such races parked far more messages). When the transaction as a whole
 * cannot commit (a deferred constraint at COMMIT, an I/O error that rolled everything back), the
 * writes run again one at a time, each on its own, so one bad write never fails the others. A
 * write is one statement, or an upsert's statements run as one unit, rolled back as a whole
 * before it runs again.
 */
export class SqliteGroupCommit {
  private pending: PendingWrite[] = [];
  private scheduled = false;
  private statements?: { begin: Database.Statement; savepoint: Database.Statement; release: Database.Statement; rollbackTo: Database.Statement };

  /** @param database the connection, opened on first use. */
  constructor(private readonly database: () => Database.Database) {}

  /** Runs `work` (one write statement) in the next group; resolves with its result after COMMIT. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs what is pending now (also called before the connection closes). */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes = batch.length === 1 ? undefined : this.inOneTransaction(batch);
    batch.forEach((write, i) => {
      // A write that failed in the group saw only the writes before it; run alone after the
      // COMMIT it sees them all, as it would have one commit per write (a child written before
      // its parent in the same group would otherwise fail on a foreign key that now holds).
      const grouped = Array.isArray(outcomes) ? outcomes[i] : undefined;
      const outcome = grouped?.ok ? grouped : Array.isArray(outcomes) || !outcomes ? alone(write) : outcomes;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }

  /**
   * The writes' outcomes; one failed outcome for all when the transaction could not start (the
   * database is busy or cannot be opened: running each alone would only wait that long again);
   * undefined when it did not commit (nothing was kept, each is run alone).
   */
  private inOneTransaction(batch: readonly PendingWrite[]): Array<Outcome<unknown>> | Outcome<never> | undefined {
    let db: Database.Database;
    try {
      db = this.database();
      this.prepared(db).begin.run();
    } catch (error) {
      return { ok: false, error };
    }
    const s = this.prepared(db);
    const outcomes: Array<Outcome<unknown>> = [];
    for (const write of batch) {
      s.savepoint.run();
      try {
        outcomes.push({ ok: true, value: write.work() });
        s.release.run();
      } catch (error) {
        // Some errors (I/O, full disk, interrupt) end the whole transaction, not just the statement.
        if (!db.inTransaction) return undefined;
        s.rollbackTo.run();
        s.release.run();
        outcomes.push({ ok: false, error });
      }
    }
    try {
      db.exec('COMMIT');
      return outcomes;
    } catch {
      if (db.inTransaction) db.exec('ROLLBACK');
      return undefined;
    }
  }

  private prepared(db: Database.Database) {
    this.statements ??= {
      begin: db.prepare('BEGIN IMMEDIATE'),
      savepoint: db.prepare('SAVEPOINT highwater_write'),
      release: db.prepare('RELEASE highwater_write'),
      rollbackTo: db.prepare('ROLLBACK TO highwater_write'),
    };
    return this.statements;
  }

  /** Forgets prepared statements (the connection was closed). */
  reset(): void {
    this.statements = undefined;
  }
}

function alone(write: PendingWrite): Outcome<unknown> {
  try {
    return { ok: true, value: write.work() };
  } catch (error) {
    return { ok: false, error };
  }
}
