/**
 * The checkpoint worker thread's entry (started by `checkpoint-worker.ts`): one connection per
 * SQLite file handed to it, a PASSIVE checkpoint whenever the file's WAL index shows enough
 * frames waiting. It waits on the shared signal and never returns to an event loop, so messages
 * are picked up with `receiveMessageOnPort`.
 */
import fs from 'node:fs';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { STOP_SLOT, WAKE_SLOT, type CheckpointTarget, type CheckpointWorkerData, type FromCheckpointWorker, type ToCheckpointWorker } from './checkpoint-worker-protocol';

/*
 * The WAL index header at the start of `<file>-shm`, as laid out in SQLite's wal.c (struct
 * WalIndexHdr, two copies, then struct WalCkptInfo; https://www.sqlite.org/walformat.html).
 * Fields are 32-bit in the native byte order of the writing host.
 */
/** WalIndexHdr.iVersion: the only WAL index version SQLite writes. */
const WAL_INDEX_VERSION = 3007000;
/** Byte offset of WalIndexHdr.iVersion. */
const VERSION_OFFSET = 0;
/** Byte offset of WalIndexHdr.mxFrame: the last valid frame in the WAL. */
const MX_FRAME_OFFSET = 16;
/** Byte offset of WalCkptInfo.nBackfill: frames already copied into the database (after the header's two 48-byte copies). */
const N_BACKFILL_OFFSET = 96;
/** Bytes read from the start of the file: both header copies (48 bytes each) and the whole WalCkptInfo (40 bytes). */
const HEADER_BYTES = 136;

interface FileEntry extends CheckpointTarget {
  db: Database.Database;
  checkpoint: Database.Statement;
  /** The `-shm` file's descriptor, once opened. */
  shm?: number;
}

/** Frames in the WAL and those of them not yet in the database. */
interface WalFrames {
  frames: number;
  pending: number;
}

if (!parentPort) throw new Error('checkpoint-worker-main runs on a worker thread (started by checkpoint-worker.ts)');
const port = parentPort;
const { signal: signalBuffer } = workerData as CheckpointWorkerData;
const signal = new Int32Array(signalBuffer);
const files = new Map<number, FileEntry>();
const UNKNOWN: WalFrames = { frames: Infinity, pending: Infinity };
const header = Buffer.alloc(HEADER_BYTES);

function add(request: CheckpointTarget & { id: number }): void {
  try {
    const db = new Database(request.file, { fileMustExist: true, timeout: 0 });
    // NORMAL whatever the writer's setting: a checkpoint then syncs the WAL before it copies and
    // the database after, which keeps a commit that a WAL sync covered on disk (wal-sync.ts).
    db.pragma('synchronous = NORMAL');
    // A checkpoint copies frames through a buffer of its own, not the page cache (16 MiB by default in better-sqlite3's build).
    db.pragma('cache_size = -64');
    files.set(request.id, { ...request, db, checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)') });
  } catch {
    // No connection (the file went away): its writer's auto-checkpoint does the work.
  }
}

function remove(id: number): void {
  const entry = files.get(id);
  files.delete(id);
  try {
    if (entry?.shm !== undefined) fs.closeSync(entry.shm);
    entry?.db.close();
  } finally {
    port.postMessage({ closed: id } satisfies FromCheckpointWorker);
  }
}

/** Read from the WAL index; {@link UNKNOWN} (checkpoint) when it cannot be read or is of another version. */
function walFrames(entry: FileEntry): WalFrames {
  try {
    entry.shm ??= fs.openSync(`${entry.file}-shm`, 'r');
    if (fs.readSync(entry.shm, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return UNKNOWN;
  } catch {
    return UNKNOWN;
  }
  const le = header.readUInt32LE(VERSION_OFFSET) === WAL_INDEX_VERSION;
  if (!le && header.readUInt32BE(VERSION_OFFSET) !== WAL_INDEX_VERSION) return UNKNOWN;
  const read = (offset: number) => (le ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  const frames = read(MX_FRAME_OFFSET);
  return { frames, pending: frames - read(N_BACKFILL_OFFSET) };
}

function checkpointWhereDue(): void {
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

let seen = 0;
for (;;) {
  Atomics.wait(signal, WAKE_SLOT, seen);
  seen = Atomics.load(signal, WAKE_SLOT);
  for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
    const message = m.message as ToCheckpointWorker;
    if ('add' in message) add(message.add);
    else remove(message.remove);
  }
  if (Atomics.load(signal, STOP_SLOT) !== 0) break;
  checkpointWhereDue();
}
for (const id of [...files.keys()]) remove(id);
