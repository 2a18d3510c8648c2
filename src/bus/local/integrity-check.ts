import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { workerEntry, workerScript } from '../../platform/worker-entry';
import { BusError } from '../message-bus';
import type { IntegrityCheckAnswer, IntegrityCheckWorkerData } from './integrity-check-worker-main';

/** How the bus file is checked when it is opened (`PRAGMA quick_check`). */
export interface IntegrityCheckOptions {
  /**
   * Files (database plus WAL) up to this size are checked on the opening thread: ~1 GB/s here,
   * so the default 64 MiB costs at most ~70 ms. Larger ones are checked on a worker thread.
   * Default 67 108 864.
   */
  inlineUpToBytes?: number;
  /**
   * How long the open waits for a worker's check. When it takes longer the open goes on
   * unchecked (the check cannot be interrupted; its thread ends on its own). Default 10 000.
   */
  timeoutMs?: number;
}

const DEFAULT_INLINE_CHECK_BYTES = 64 * 1024 * 1024;
const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
/** Problems reported at most: the first names the damage, the count says how much there is. */
const MAX_PROBLEMS = 10;

/*
 * Why at open: SQLite reads only the pages a statement touches, so a damaged index page was found
 * by the first receive, after the host had started and reported itself healthy; every receive
 * then failed. quick_check reads every page (b-tree structure, not index-to-table agreement).
 */

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Whether the file is large enough for the worker (a new or empty file needs no check). */
export function checkOnWorker(file: string, options: IntegrityCheckOptions | undefined): boolean {
  const size = sizeOf(file) + sizeOf(`${file}-wal`);
  return size > 0 && size > (options?.inlineUpToBytes ?? DEFAULT_INLINE_CHECK_BYTES);
}

/** The refusal for a damaged file: what was found and what to do. */
function corruptFileError(file: string, reported: readonly string[]): BusError {
  // quick_check prefixes the first problem with "*** in database main ***" and a line break.
  const problems = reported.map((p) => p.replace(/^\*\*\* in database \w+ \*\*\*\s*/, '').replace(/\s+/g, ' ').trim());
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new BusError(
    'Corrupt',
    `The local bus database ${file} is damaged: PRAGMA quick_check found: ${problems[0]}${more}. ` +
      `Highwater does not start on it. Stop every process that uses it, move ${file} and its -wal and -shm files aside, ` +
      `and start again with an empty bus; the messages in it can be salvaged with: sqlite3 <moved file> .recover`,
  );
}

/** Runs quick_check on an open connection. @throws BusError `Corrupt` naming the problems. */
export function checkInline(db: Database.Database, file: string): void {
  const rows = db.pragma(`quick_check(${MAX_PROBLEMS})`, { simple: false }) as Array<{ quick_check: string }>;
  const problems = rows.map((r) => r.quick_check).filter((p) => p !== 'ok');
  if (problems.length > 0) throw corruptFileError(file, problems);
}

/**
 * Runs quick_check on a worker thread, waiting at most `timeoutMs`. Resolves when the file is
 * sound, when the check did not finish in time, or when it could not run (opening the file
 * reports that better). @throws BusError `Corrupt` naming the problems.
 */
export async function checkOnWorkerThread(file: string, options: IntegrityCheckOptions | undefined): Promise<void> {
  const timeoutMs = options?.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const entry = workerEntry(workerScript(__dirname, 'integrity-check-worker-main'));
  const workerData: IntegrityCheckWorkerData = { file, max: MAX_PROBLEMS };
  const worker = new Worker(entry.file, { workerData, execArgv: entry.execArgv });
  worker.unref();
  let timer: NodeJS.Timeout | undefined;
  const result = await new Promise<IntegrityCheckAnswer | undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    worker.once('message', resolve);
    worker.once('error', (err) => resolve({ error: err.message }));
  });
  clearTimeout(timer);
  void worker.terminate();
  if (result && 'problems' in result && result.problems.length > 0) throw corruptFileError(file, result.problems);
}
