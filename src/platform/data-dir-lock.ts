import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureFolder } from './data-folder';
import { sayWhenNewDataFolder } from './new-data-folder-notice';
import { ConfigError } from './errors';

/**
 * One local host per data folder. Two hosts on one folder share its bus file and tables: each
 * took the other's messages and recorded runs as "Failed" that had succeeded. A host writes
 * `host.lock` (its pid, host name and start time) into the data folder when it starts and removes
 * it when it stops; a second host finds a live pid there and is refused. A lock whose process is
 * gone (the host was killed) is stale and taken over. CLI commands take no lock: reading status
 * or pushing config beside a running host stays allowed.
 *
 * Within one process the lock is re-entrant (`highwater start` takes it before `--reset` touches
 * the folder, the host it starts takes it again); the file goes when the last holder releases it.
 */

/** The lock file's name in the data folder. */
export const LOCK_FILE_NAME = 'host.lock';

interface LockContent {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** A held lock. `release` is idempotent. */
export interface DataDirLock {
  readonly file: string;
  /**
   * True when this process took the folder over from a host whose process is gone: that host
   * stopped without settling what it held, and its locked messages come back.
   */
  readonly tookOver: boolean;
  release(): void;
}

/** Seams for tests. */
export interface LockOptions {
  /** Whether a process runs. Default: signal 0 (`EPERM`: it runs, as another user). */
  isAlive?: (pid: number) => boolean;
  /** Default: `new Date()`. */
  now?: () => Date;
}

/** Holders in this process, by lock file. */
const held = new Map<string, number>();

function isAliveBySignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): { text: string; content: LockContent | undefined } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockContent>;
    return Number.isInteger(parsed.pid) && typeof parsed.hostname === 'string' ? { text, content: parsed as LockContent } : { text, content: undefined };
  } catch {
    // Cut short (a kill while writing it): no host can be named, so it is stale.
    return { text, content: undefined };
  }
}

/** The refusal a second host gets. */
export function dataDirInUseMessage(dir: string, holder: LockContent): string {
  const where = holder.hostname === os.hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.hostname}`;
  return (
    `data folder ${dir} is in use by another highwater host (${where}, started ${holder.startedAt}): ` +
    'stop that host first, or give this one its own folder with HIGHWATER_DATA_DIR. ' +
    `(CLI commands beside a running host are fine. If no host runs there, delete ${path.join(dir, LOCK_FILE_NAME)}.)`
  );
}

/**
 * Takes the data folder's lock (creating the folder if missing).
 * @throws ConfigError {@link dataDirInUseMessage} when a live host of another process holds it;
 *   DataFolderError when the folder cannot be created.
 */
export function lockDataDir(dataDir: string, options: LockOptions = {}): DataDirLock {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, LOCK_FILE_NAME);
  const isAlive = options.isAlive ?? isAliveBySignal;
  let tookOver = false;
  if (!held.has(file)) {
    sayWhenNewDataFolder(dir);
    ensureFolder(dir);
    const mine: LockContent = { pid: process.pid, hostname: os.hostname(), startedAt: (options.now?.() ?? new Date()).toISOString() };
    tookOver = acquire(file, dir, JSON.stringify(mine), isAlive);
  }
  held.set(file, (held.get(file) ?? 0) + 1);
  let released = false;
  return {
    file,
    tookOver,
    release() {
      if (released) return;
      released = true;
      const left = (held.get(file) ?? 1) - 1;
      if (left > 0) return void held.set(file, left);
      held.delete(file);
      // Only our own file: a host that took over a lock we lost must keep it.
      const current = readLock(file);
      if (current?.content?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}

/** @returns whether a stale lock (of a process that is gone) was taken over. */
function acquire(file: string, dir: string, text: string, isAlive: (pid: number) => boolean): boolean {
  let stale = false;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, text, { flag: 'wx' });
      return stale;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`cannot write the lock file ${file}: ${(err as Error).message}`, { cause: err });
    }
    const found = readLock(file);
    if (!found) continue; // Released meanwhile: try again.
    const holder = found.content;
    const sameHost = holder?.hostname === os.hostname();
    if (holder && (!sameHost || (holder.pid !== process.pid && isAlive(holder.pid)))) throw new ConfigError(dataDirInUseMessage(dir, holder));
    // Stale (its process is gone, or the file is unreadable): move it aside, and only if it is
    // still the file we judged — another host may have taken it over in between.
    const aside = `${file}.${process.pid}.stale`;
    try {
      fs.renameSync(file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // Taken aside by another host meanwhile.
      throw err;
    }
    const moved = readLock(aside);
    if (moved?.text !== found.text) {
      fs.renameSync(aside, file);
      continue;
    }
    fs.rmSync(aside, { force: true });
    stale = true;
  }
  throw new ConfigError(`cannot take the lock file ${file}: it keeps changing (several hosts starting at once?)`);
}
