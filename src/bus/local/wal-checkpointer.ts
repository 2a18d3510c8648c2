import { Worker } from 'node:worker_threads';
import { AUTO_CHECKPOINT_PAGES } from './open-database';

/** Estimated bytes written between two wake-ups of the worker. */
const WAKE_AFTER_BYTES = 1 << 20;
/** Estimated bytes written before the worker is started: it has nothing to do before 16 MiB. */
const START_AFTER_BYTES = 8 << 20;
/**
 * Frames (pages) waiting in the WAL from which the worker checkpoints: 16 MiB. 4 MiB was no
 * faster for long runs and slower for short ones (10k detected changes: the worker's copying
 * competed for the CPU with work that would never have needed a checkpoint).
 */
const CHECKPOINT_FRAMES = 4096;

// Plain JavaScript: the worker must not depend on the TypeScript loader of its parent.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.sqlite);
const signal = new Int32Array(workerData.signal);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
// NORMAL whatever the bus's option: a checkpoint then syncs the WAL before it copies and the
// database after, which is what keeps a commit that a WAL sync covered on disk (commit-sync.ts).
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const header = Buffer.alloc(136);
let shm;
const UNKNOWN = { frames: Infinity, pending: Infinity };
// Frames in the WAL (WalIndexHdr.mxFrame, offset 16) and those not yet copied into the database
// (minus WalCkptInfo.nBackfill, offset 96); native byte order, version 3007000.
function walFrames() {
  try {
    if (shm === undefined) shm = fs.openSync(workerData.file + '-shm', 'r');
    if (fs.readSync(shm, header, 0, 136, 0) < 136) return UNKNOWN;
  } catch {
    return UNKNOWN;
  }
  const le = header.readUInt32LE(0) === 3007000;
  if (!le && header.readUInt32BE(0) !== 3007000) return UNKNOWN;
  const read = (offset) => (le ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  return { frames: read(16), pending: read(16) - read(96) };
}
let seen = 0;
for (;;) {
  Atomics.wait(signal, 0, seen);
  if (Atomics.load(signal, 1) !== 0) break;
  seen = Atomics.load(signal, 0);
  const { frames, pending } = walFrames();
  // Close to the bus's own auto-checkpoint, leave it little to copy: it runs on the bus's thread.
  if (pending < (frames >= workerData.nearAutoFrames ? workerData.nearAutoFrames / 64 : workerData.frames)) continue;
  try {
    checkpoint.run();
  } catch {
    // Busy (another checkpoint runs): the next wake-up tries again.
  }
}
if (shm !== undefined) fs.closeSync(shm);
db.close();
`;

/**
 * Runs WAL checkpoints on a worker thread, so that the bus's thread never waits for one.
 *
 * A checkpoint copies the WAL's pages into the database file and fsyncs both (the bus's
 * connections commit with `synchronous=NORMAL`: the only fsyncs there are besides the WAL syncs
 * of the option `synchronous: 'FULL'`). On the bus's thread each one of 16 MiB took ~40 ms, a
 * fifth of the bus benchmark's time. On a second connection in a worker it overlaps with the
 * bus's own work. What is durable when does not change: a commit is in the WAL when its call
 * resolves (and synced there, for the calls that wait under FULL), whichever connection copies
 * it into the database later.
 *
 * The bus's thread only adds up an estimate of what it wrote and wakes the worker every
 * {@link WAKE_AFTER_BYTES}; the worker reads the exact number of frames waiting from the WAL
 * index (`-shm`, layout in https://www.sqlite.org/walformat.html) and checkpoints (PASSIVE:
 * blocks neither writers nor readers) from {@link CHECKPOINT_FRAMES} on, and from a few dozen
 * once the WAL nears the auto-checkpoint of the bus's connection (which stays as the bound on
 * the WAL and resets it; see AUTO_CHECKPOINT_PAGES), so that one finds little to copy. The
 * worker starts once {@link START_AFTER_BYTES} were written, so a bus that writes little (most
 * tests, short runs) never starts one.
 */
export class WalCheckpointer {
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private written = 0;
  private total = 0;
  private stopped = false;

  constructor(private readonly file: string) {}

  /** After a commit: about `bytes` were written to the WAL. */
  wrote(bytes: number): void {
    this.written += bytes;
    if (this.written < WAKE_AFTER_BYTES || this.stopped) return;
    this.total += this.written;
    this.written = 0;
    if (this.worker === undefined && this.total < START_AFTER_BYTES) return;
    try {
      this.worker ??= this.start();
    } catch {
      // No worker threads here: SQLite's auto-checkpoint does the work, as it did before.
      this.stopped = true;
      return;
    }
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
  }

  /** Stops the worker; resolves once its connection is closed (a running checkpoint finishes first). */
  async close(): Promise<void> {
    this.stopped = true;
    if (!this.worker) return;
    // Unreferenced while it runs (it must not keep a process alive), referenced while awaited.
    this.worker.ref();
    Atomics.store(this.signal, 1, 1);
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
    await this.exited;
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.file,
        sqlite: require.resolve('better-sqlite3'),
        signal: this.signal.buffer,
        frames: CHECKPOINT_FRAMES,
        nearAutoFrames: (AUTO_CHECKPOINT_PAGES * 3) / 4,
      },
    });
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // A failed worker costs speed only: the auto-checkpoint still bounds the WAL.
    worker.on('error', () => {
      this.stopped = true;
    });
    worker.unref();
    return worker;
  }
}
