import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Flushes one file (and, on the first call, its directory) to disk. */
export type FileSyncer = (file: string, withDirectory: boolean) => Promise<void>;

/**
 * Makes commits on a WAL-mode SQLite connection durable without blocking the event loop.
 *
 * Why: better-sqlite3 builds SQLite with `SQLITE_DEFAULT_WAL_SYNCHRONOUS=1`, so a connection to a
 * WAL database commits with `synchronous = NORMAL`: the commit reaches the OS but not the disk,
 * and a power loss can take back a write the caller was already told about (a target row whose
 * message was completed on the bus, a message the local bus accepted).
 * `synchronous = FULL` would fsync inside every COMMIT, on the thread that runs everything else.
 * Instead the connection stays on NORMAL and each write waits for {@link durable}: an fdatasync of
 * the WAL file on libuv's thread pool, one at a time, shared by every commit made before it
 * started. The WAL holds every committed frame until a checkpoint copies it, and a checkpoint
 * under NORMAL syncs the WAL before and the database after: a synced WAL covers the commit
 * either way.
 *
 * Used by the SQLite target connector (`connectors/sql/sqlite-dialect.ts`) and the local bus
 * (`src/bus/local/commit-sync.ts`), both with their option `synchronous: 'FULL'`.
 */
export class WalSync {
  private running: Promise<void> | undefined;
  private next: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  private directorySynced = false;

  /**
   * @param walFile the `-wal` file of the database (absolute path).
   * @param syncFile default: open, fdatasync, close (a missing WAL has nothing to sync: its frames
   *   were checkpointed, and synced, before it went).
   */
  constructor(
    private readonly walFile: string,
    private readonly syncFile: FileSyncer = syncToDisk,
  ) {}

  /**
   * Resolves once every commit made on this connection before the call is on disk.
   * @throws the sync's error (`EIO`, `ENOSPC`…): the caller cannot know whether its write is
   *   durable and must treat it as failed (retried).
   */
  durable(): Promise<void> {
    // A sync already running may have started before the caller's commit: it waits for the next.
    if (this.running === undefined) return this.start();
    if (this.next === undefined) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject };
    }
    return this.next.promise;
  }

  private start(): Promise<void> {
    const withDirectory = !this.directorySynced;
    const round = this.syncFile(this.walFile, withDirectory).then(() => {
      if (withDirectory) this.directorySynced = true;
    });
    this.running = round;
    const after = () => {
      this.running = undefined;
      const waiting = this.next;
      this.next = undefined;
      if (waiting) this.start().then(waiting.resolve, waiting.reject);
    };
    round.then(after, after);
    return round;
  }
}

/** fdatasync of `file` on the thread pool; with `withDirectory`, also fsync of its directory (the WAL's entry). */
async function syncToDisk(file: string, withDirectory: boolean): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (withDirectory) {
    const directory = await fs.open(path.dirname(file), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }
}
