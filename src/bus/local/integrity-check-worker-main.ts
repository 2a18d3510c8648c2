import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * The worker of `checkOnWorkerThread` (integrity-check.ts): runs `PRAGMA quick_check` on a
 * read-only connection of its own and posts what it found. It only reads; the opening thread
 * decides what a problem means.
 */

/** What the opening thread hands the worker. */
export interface IntegrityCheckWorkerData {
  file: string;
  /** Problems reported at most. */
  max: number;
}

/** The worker's one message: the problems (empty when sound) or why the check could not run. */
export type IntegrityCheckAnswer = { problems: string[] } | { error: string };

function check({ file, max }: IntegrityCheckWorkerData): IntegrityCheckAnswer {
  try {
    const db = new Database(file, { fileMustExist: true, readonly: true, timeout: 1000 });
    try {
      const rows = db.pragma(`quick_check(${Math.trunc(max)})`, { simple: false }) as Array<{ quick_check: string }>;
      return { problems: rows.map((r) => r.quick_check).filter((p) => p !== 'ok') };
    } finally {
      db.close();
    }
  } catch (err) {
    return { error: String(err instanceof Error ? err.message : err) };
  }
}

parentPort?.postMessage(check(workerData as IntegrityCheckWorkerData));
