import Database from 'better-sqlite3';
import { classifyError } from '../base/error-classification';
import { bindCommon, type SqlDatabase, type SqlDialect, type SqlRow, type SqlStatement, type SqlSyncTransaction } from './dialect';
import { formatTimestamp, inferTimestampFormat } from './sqlite-timestamps';
import { SQLITE_ERROR_RULES, sqliteErrorCode } from './sqlite-errors';
import { SqliteGroupCommit } from './sqlite-group-commit';
import { exactRows, execute, inImmediateTransaction } from './sqlite-transaction';
import { type FileSyncer, WalSync } from '../../src/sqlite/wal-sync';
import { WalCheckpointer } from '../../src/sqlite/wal-checkpointer';
import { errorMessage, TransientError } from '../../src/platform/errors';
import type { WatermarkType } from '../../src/model/watermark-value';

/** SQLite: `?` placeholders, booleans as 1/0, datetimes as ISO 8601 UTC text (see `sqlite-timestamps.ts`). */
export const sqliteDialect: SqlDialect = {
  kind: 'sqlite',
  placeholder: () => '?',
  bindValue(value) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    // better-sqlite3 binds every JS number as REAL, which a TEXT column stores as '1.0'.
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    return bindCommon(value);
  },
  watermarkParameter(type: WatermarkType, canonical: string, sample: unknown, what: string) {
    switch (type) {
      case 'datetime':
        return formatTimestamp(canonical, inferTimestampFormat(sample, what));
      case 'number': {
        if (/^-?\d+$/.test(canonical)) {
          const value = BigInt(canonical);
          return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
        }
        return Number(canonical);
      }
      default:
        return canonical;
    }
  },
};

export interface SqliteOptions {
  /** Absolute path of the database file; it must exist (a missing file is the source being down). */
  file: string;
  /** How long a statement waits for another writer's lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /** Names the connection in error messages. */
  connectionName: string;
  /**
   * Commits the single writes (`query`, `firstWithRows`) issued in one event-loop turn together
   * ({@link SqliteGroupCommit}): two-way pair writes, InvokeAction calls, outbox bookkeeping.
   * `transactionSync` (the batch groups) never goes through it. Default false: each write
   * commits on its own, at once.
   */
  groupCommit?: boolean;
  /** Page cache of the connection, in KiB. Default {@link DEFAULT_CACHE_SIZE_KB}. */
  cacheSizeKb?: number;
  /**
   * `FULL`: a write resolves once it is on disk (a WAL database: the connection commits with
   * NORMAL and each write waits for {@link WalSync}; otherwise SQLite's FULL). `NORMAL`: it
   * survives a crash of the process. Default: SQLite's (better-sqlite3's build: NORMAL for WAL
   * databases, FULL otherwise).
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** With `synchronous: 'FULL'` on a WAL database: flushes the WAL. Default: fdatasync on the thread pool. */
  syncFile?: FileSyncer;
}

const STATEMENT_CACHE_SIZE = 100;

/**
 * 2 MiB, SQLite's own default (better-sqlite3 builds it with 16 MiB). Measured end to end at 100k
 * rows (a source and a target connection): peak RSS 197–215 → 168–170 MB, throughput unchanged;
 * keyset reads and upserts by key touch few pages more than once, the OS caches the file.
 */
const DEFAULT_CACHE_SIZE_KB = 2048;

/**
 * A writing connection checkpoints its WAL after this many pages (32 MiB; SQLite's default is
 * 1000) if the checkpoint worker (WalCheckpointer) has not done so before. That checkpoint runs
 * inside the COMMIT that crosses the bound, on the event loop, and copies each page once however
 * often the WAL holds it: upserts by random keys rewrite the same interior and leaf pages many
 * times over 8192 frames. Measured end to end at 100k rows: 9.1–9.3k →
 * 11.2–11.3k rows/s, peak RSS the same. The bus's connection uses the same bound.
 */
const WAL_AUTOCHECKPOINT_PAGES = 8192;

/**
 * What a write adds to the WAL, for the checkpointer's wake-ups (it reads the exact frame count
 * itself): a row's table page and an index page.
 */
const WRITE_BYTES_ESTIMATE = 2 * 4096;

/**
 * One better-sqlite3 handle, opened on first use with `PRAGMA foreign_keys = ON` (so a missing
 * referenced row is reported, as a TransitiveError). Statements are prepared once and cached.
 * Reads run at once; with `groupCommit`, writes go through {@link SqliteGroupCommit}: those
 * issued in the same event-loop turn share one transaction, and each resolves after it committed.
 * With `synchronous: 'FULL'` a write resolves only once it is on disk: a rollback-journal
 * database commits with FULL; a WAL database with NORMAL, and the write then waits for
 * {@link WalSync}, off the event loop.
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = sqliteDialect;
  private db: Database.Database | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly writes: SqliteGroupCommit | undefined;
  /** Set when the open database is in WAL mode. */
  private walSync: WalSync | undefined;
  /** Set when the open database is in WAL mode: checkpoints off the event loop. */
  private checkpointer: WalCheckpointer | undefined;

  constructor(private readonly options: SqliteOptions) {
    this.writes = options.groupCommit ? new SqliteGroupCommit(() => this.open()) : undefined;
  }

  async query(sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]> {
    let rows: SqlRow[];
    try {
      const statement = this.statement(sql);
      if (statement.readonly) return exactRows(statement.all(...params) as SqlRow[]);
      rows = this.writes ? await this.writes.run(() => execute(statement, params)) : execute(statement, params);
      this.checkpointer?.wrote(WRITE_BYTES_ESTIMATE);
    } catch (err) {
      throw this.classify(err, operation);
    }
    if (this.walSync) await this.durable(operation);
    return rows;
  }

  /** The statements as one unit (with group commit, one savepoint): an upsert's miss costs no extra commit. */
  async firstWithRows(statements: readonly SqlStatement[]): Promise<SqlRow[]> {
    const prepared = statements.map((s) => {
      try {
        return { statement: this.statement(s.sql), ...s };
      } catch (err) {
        throw this.classify(err, s.operation);
      }
    });
    const unit = () => {
      for (const { statement, params, operation } of prepared) {
        try {
          const rows = execute(statement, params);
          if (rows.length > 0) return rows;
        } catch (err) {
          throw this.classify(err, operation);
        }
      }
      return [];
    };
    const rows = this.writes ? await this.writes.run(unit) : unit();
    this.checkpointer?.wrote(WRITE_BYTES_ESTIMATE);
    if (this.walSync) await this.durable(prepared[0]?.operation ?? 'write');
    return rows;
  }

  /**
   * `work` inside one `BEGIN IMMEDIATE … COMMIT`, synchronously: nothing interleaves, and the
   * group commit's own transactions run between event-loop turns, never inside this one. Resolves
   * after the commit and, with `synchronous: 'FULL'` on a WAL database, after its WAL sync.
   * @throws the classified error of BEGIN (SQLITE_BUSY after the busy timeout), of `work` or of
   *   COMMIT (a deferred foreign key); the transaction is rolled back first, nothing is kept.
   */
  async transactionSync<T>(work: (tx: SqlSyncTransaction) => T, operation: string): Promise<T> {
    const parts = { db: this.handle(operation), statement: (sql: string) => this.statement(sql), classify: (err: unknown, op: string) => this.classify(err, op) };
    const { value, statements } = inImmediateTransaction(parts, work, operation);
    this.checkpointer?.wrote(statements * WRITE_BYTES_ESTIMATE);
    if (this.walSync) await this.durable(operation);
    return value;
  }

  private handle(operation: string): Database.Database {
    try {
      return this.open();
    } catch (err) {
      throw this.classify(err, operation);
    }
  }

  /**
   * Waits until the writes committed so far are on disk (WAL databases; a rollback-journal
   * commit has synced already).
   * @throws TransientError when the sync failed: whether the write is durable is unknown.
   */
  private async durable(operation: string): Promise<void> {
    if (!this.walSync) return;
    try {
      await this.walSync.durable();
    } catch (err) {
      throw new TransientError(`sqlite connection "${this.options.connectionName}": ${operation}: the write could not be flushed to disk: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  private classify(err: unknown, operation: string) {
    return classifyError(err, SQLITE_ERROR_RULES, {
      codeOf: sqliteErrorCode,
      operation: `sqlite connection "${this.options.connectionName}": ${operation}`,
    });
  }

  async close(): Promise<void> {
    this.writes?.flush();
    this.writes?.reset();
    this.statements.clear();
    const checkpointer = this.checkpointer;
    this.checkpointer = undefined;
    await checkpointer?.close();
    this.db?.close();
    this.db = undefined;
    this.walSync = undefined;
  }

  private statement(sql: string): Database.Statement {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const statement = this.open().prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value as string);
    this.statements.set(sql, statement);
    return statement;
  }

  private open(): Database.Database {
    if (!this.db) {
      const db = new Database(this.options.file, { fileMustExist: true, timeout: this.options.busyTimeoutMs ?? 5000 });
      db.pragma('foreign_keys = ON');
      // better-sqlite3 builds SQLite with a 16 MB page cache per connection; a host holds several.
      db.pragma(`cache_size = -${this.options.cacheSizeKb ?? DEFAULT_CACHE_SIZE_KB}`);
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      // Integers as BigInt, so that none beyond 2^53 is rounded; exactRows turns the others back into numbers.
      db.defaultSafeIntegers(true);
      const wal = String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
      if (wal) this.checkpointer = new WalCheckpointer(this.options.file, WAL_AUTOCHECKPOINT_PAGES);
      if (this.options.synchronous === 'NORMAL') db.pragma('synchronous = NORMAL');
      if (this.options.synchronous === 'FULL') {
        // FULL inside every COMMIT would fsync on the event loop; a WAL database syncs its WAL beside it.
        db.pragma(`synchronous = ${wal ? 'NORMAL' : 'FULL'}`);
        if (wal) this.walSync = new WalSync(`${this.options.file}-wal`, this.options.syncFile);
      }
      this.db = db;
    }
    return this.db;
  }
}
