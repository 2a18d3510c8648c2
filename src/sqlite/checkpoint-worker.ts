import { Worker } from 'node:worker_threads';

// Plain JavaScript: the worker must not depend on the TypeScript loader of its parent.
const WORKER_SOURCE = `
const { workerData, parentPort, receiveMessageOnPort } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.sqlite);
const signal = new Int32Array(workerData.signal);
const files = new Map();
const UNKNOWN = { frames: Infinity, pending: Infinity };
const header = Buffer.alloc(136);
function add(request) {
  try {
    const db = new Database(request.file, { fileMustExist: true, timeout: 0 });
    // NORMAL whatever the writer's setting: a checkpoint then syncs the WAL before it copies and
    // the database after, which keeps a commit that a WAL sync covered on disk (wal-sync.ts).
    db.pragma('synchronous = NORMAL');
    // A checkpoint copies frames through a buffer of its own, not the page cache (16 MiB by default in better-sqlite3's build).
    db.pragma('cache_size = -64');
    files.set(request.id, { ...request, db, checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)'), shm: undefined });
  } catch {
    // No connection (the file went away): its writer's auto-checkpoint does the work.
  }
}
function remove(id) {
  const entry = files.get(id);
  files.delete(id);
  try {
    if (entry && entry.shm !== undefined) fs.closeSync(entry.shm);
    if (entry) entry.db.close();
  } finally {
    parentPort.postMessage({ closed: id });
  }
}
// Frames in the WAL (WalIndexHdr.mxFrame, offset 16) and those not yet copied into the database
// (minus WalCkptInfo.nBackfill, offset 96); native byte order, version 3007000.
function walFrames(entry) {
  try {
    if (entry.shm === undefined) entry.shm = fs.openSync(entry.file + '-shm', 'r');
    if (fs.readSync(entry.shm, header, 0, 136, 0) < 136) return UNKNOWN;
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
  seen = Atomics.load(signal, 0);
  for (let m = receiveMessageOnPort(parentPort); m !== undefined; m = receiveMessageOnPort(parentPort)) {
    if (m.message.add) add(m.message.add);
    else remove(m.message.remove);
  }
  if (Atomics.load(signal, 1) !== 0) break;
  for (const entry of files.values()) {
    const { frames, pending } = walFrames(entry);
    // Close to the writer's own auto-checkpoint, leave it little to copy: it runs on the writer's thread.
    if (pending < (frames >= entry.nearAutoFrames ? entry.nearAutoFrames / 64 : entry.frames)) continue;
    try {
      entry.checkpoint.run();
    } catch {
      // Busy (another checkpoint runs): the next wake-up tries again.
    }
  }
}
for (const id of [...files.keys()]) remove(id);
`;

/** What the worker needs to checkpoint one file. */
export interface CheckpointTarget {
  file: string;
  /** Frames waiting from which it checkpoints. */
  frames: number;
  /** Frames from which it checkpoints whatever waits (the writer's auto-checkpoint is near). */
  nearAutoFrames: number;
}

/**
 * One worker thread for the WAL checkpoints of every SQLite file of the process (the bus's and
 * SQLite targets'): a worker is a V8 isolate of its own, ~7 MB of RSS, too much to pay per file.
 * Started with the first file and stopped with the last. The worker waits on a shared counter
 * ({@link wake}), picks up added and removed files with `receiveMessageOnPort` (it never returns
 * to an event loop), and reads each file's WAL index to decide whether to checkpoint.
 */
export class CheckpointWorker {
  private static current: CheckpointWorker | undefined;
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly closing = new Map<number, () => void>();
  private nextId = 0;
  private files = 0;
  private waiting = 0;
  private dead = false;

  /** Whether the process's worker runs (for tests). */
  static get running(): boolean {
    return CheckpointWorker.current !== undefined;
  }

  /** The process's worker, started if none runs. @throws when worker threads cannot start. */
  static acquire(): CheckpointWorker {
    CheckpointWorker.current ??= new CheckpointWorker();
    return CheckpointWorker.current;
  }

  private constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqlite: require.resolve('better-sqlite3'), signal: this.signal.buffer } });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: { closed?: number }) => {
      if (message.closed !== undefined) this.closing.get(message.closed)?.();
    });
    // A failed worker costs speed only: each writer's auto-checkpoint still bounds its WAL.
    this.worker.on('error', () => this.retire());
    void this.exited.then(() => {
      this.dead = true;
      this.retire();
      for (const done of this.closing.values()) done();
    });
    this.worker.unref();
  }

  /** Starts checkpointing `target.file` on the worker; the id is for {@link wake} and {@link remove}. */
  add(target: CheckpointTarget): number {
    const id = ++this.nextId;
    this.files++;
    this.worker.postMessage({ add: { id, ...target } });
    this.wake();
    return id;
  }

  /** Lets the worker look at its files' WALs. */
  wake(): void {
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
  }

  /** Resolves once the worker has closed its connection to the file (a running checkpoint finishes first); stops the worker with its last file. */
  async remove(id: number): Promise<void> {
    if (this.dead) return;
    const closed = new Promise<void>((resolve) => this.closing.set(id, resolve));
    // Referenced while awaited (it must not keep a process alive otherwise).
    if (this.waiting++ === 0) this.worker.ref();
    this.worker.postMessage({ remove: id });
    this.wake();
    await closed;
    this.closing.delete(id);
    if (--this.files === 0) await this.stop();
    if (--this.waiting === 0) this.worker.unref();
  }

  private async stop(): Promise<void> {
    this.retire();
    Atomics.store(this.signal, 1, 1);
    this.wake();
    await this.exited;
  }

  /** Later files start a new worker. */
  private retire(): void {
    if (CheckpointWorker.current === this) CheckpointWorker.current = undefined;
  }
}
