import { performance } from 'node:perf_hooks';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DataFolderError, ensureFolder } from '../../platform/data-folder';
import { BusError } from '../message-bus';
import { DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_FILE_NAME, type LocalBusOptions } from './options';
import { checkInline, checkOnWorker, checkOnWorkerThread } from './integrity-check';
import { ensureSchema } from './schema';
import { isBusy, toBusError } from './sqlite-errors';

/**
 * SQLite's own WAL checkpoint on the bus's connection, in pages. Checkpoints normally run on a
 * worker thread (WalCheckpointer) long before this; this one remains as the bound of the WAL
 * (32 MiB) and is what resets it under a steady write load, when the worker never quite
 * catches up between two commits. Each one costs the bus's thread two fsyncs (~13 ms here)
 * however little is left to copy: 8192 halved that time against 4096 (measured); 16384 bought
 * nothing more.
 */
export const AUTO_CHECKPOINT_PAGES = 8192;

/*
 * The WAL file is cut back to 32 MiB after a checkpoint. 2 MiB of page cache: 8 MiB bought
 * nothing measurable (bus benchmark and end to end, 2026-11-30) and cost ~6 MB of RSS; what a
 * receive touches twice is the FIFO index's last pages. Page size stays 4 KiB: 16 KiB sped up
 * sends by a fifth but slowed receive+complete as much (bigger WAL frames per update).
 */
const PRAGMAS = [`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`, 'journal_size_limit = 33554432', 'cache_size = -2048'];

/** Checks the connection options; the queue declarations are checked by their parser. */
export function validateBusOptions(options: LocalBusOptions): void {
  if (typeof options?.dataDir !== 'string' || options.dataDir.trim() === '') {
    throw new BusError('InvalidArgument', 'dataDir must be a non-empty path');
  }
  for (const key of ['busyTimeoutMs', 'pollIntervalMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new BusError('InvalidArgument', `${key} must be a positive integer, got ${String(value)}`);
    }
  }
  const synchronous = options.synchronous;
  if (synchronous !== undefined && synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new BusError('InvalidArgument', `synchronous must be 'NORMAL' or 'FULL', got ${JSON.stringify(synchronous)}`);
  }
  if (options.syncFile !== undefined && typeof options.syncFile !== 'function') {
    throw new BusError('InvalidArgument', `syncFile must be a function (file, withDirectory) => Promise<void>, got ${typeof options.syncFile}`);
  }
  for (const key of ['inlineUpToBytes', 'timeoutMs'] as const) {
    const value = options.integrityCheck?.[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new BusError('InvalidArgument', `integrityCheck.${key} must be a non-negative integer, got ${String(value)}`);
    }
  }
}

/** The bus's folder, created if missing. @throws BusError `InvalidArgument` naming the folder and why. */
function ensureDataFolder(dir: string): void {
  try {
    ensureFolder(dir);
  } catch (err) {
    if (err instanceof DataFolderError) throw new BusError('InvalidArgument', `The local bus data folder ${err.message}`);
    throw err;
  }
}

/** The database file's absolute path for these options. */
function databaseFile(options: LocalBusOptions): string {
  return path.resolve(options.dataDir, options.fileName ?? DEFAULT_FILE_NAME);
}

/**
 * Opens (creating if needed) the database in WAL mode with the bus schema, then runs `init` in
 * one immediate transaction and returns its result. Closes the connection on any failure.
 *
 * Processes opening a new file at the same moment can get SQLITE_BUSY from SQLite without its
 * busy handler being consulted (seen with two receivers starting together); the whole open is
 * then retried, with short pauses, for up to `busyTimeoutMs` (real time). An existing file is
 * checked first (`integrity-check.ts`): the host refuses a damaged file at start instead of
 * failing on the first receive that reads a damaged page.
 * @throws BusError `Corrupt` (naming the file and what to do) or `Unavailable`.
 */
export async function openDatabase<T>(options: LocalBusOptions, init: (db: Database.Database, file: string) => T): Promise<T> {
  const deadline = performance.now() + (options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  const onWorker = checkOnWorker(databaseFile(options), options.integrityCheck);
  if (onWorker) await checkOnWorkerThread(databaseFile(options), options.integrityCheck);
  for (let attempt = 1; ; attempt++) {
    try {
      return openOnce(options, init, !onWorker);
    } catch (err) {
      if (!isBusy(err) || performance.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(20 * attempt, 200)));
    }
  }
}

function openOnce<T>(options: LocalBusOptions, init: (db: Database.Database, file: string) => T, checkHere: boolean): T {
  const file = databaseFile(options);
  let db: Database.Database | undefined;
  try {
    ensureDataFolder(path.dirname(file));
    db = new Database(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') {
      throw new BusError('Unavailable', `The local bus database ${file} cannot use WAL mode (got ${String(mode)})`);
    }
    // Also with the option `synchronous: 'FULL'`: SQLite's FULL would fsync inside every COMMIT on
    // the event loop; the calls that need it wait for a sync of the WAL instead (commit-sync.ts).
    db.pragma('synchronous = NORMAL');
    for (const pragma of PRAGMAS) db.pragma(pragma);
    ensureSchema(db, file);
    if (checkHere) checkInline(db, file);
    const opened = db;
    return opened.transaction(() => init(opened, file)).immediate();
  } catch (err) {
    db?.close();
    throw toBusError(err, file);
  }
}
