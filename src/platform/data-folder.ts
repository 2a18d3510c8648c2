import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Creates a data folder (and missing parents) one level at a time. Node's recursive mkdir spun
 * under /proc (36,515 mkdir calls in 10 s: ENOENT for the child, EEXIST for the parent, again),
 * and a path that is an existing file failed with `EEXIST: file already exists`.
 */

/** Why a data folder cannot be used, in the words the messages use. */
export class DataFolderError extends Error {
  override readonly name = 'DataFolderError';
}

function kindOf(file: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(file).isDirectory() ? 'folder' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw new DataFolderError(`${file}: cannot use it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

const REASONS: Record<string, string> = {
  ENOENT: 'the file system there does not allow creating folders',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'disk full',
  ENOTDIR: 'a parent is not a folder',
};

/**
 * Makes sure `dir` is a folder, creating it and its missing parents.
 * @throws DataFolderError `<dir>: not a folder` or `<dir>: cannot create (<reason>)`.
 */
export function ensureFolder(dir: string): void {
  const absolute = path.resolve(dir);
  const missing: string[] = [];
  let at = absolute;
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind === 'other') throw new DataFolderError(at === absolute ? `${absolute}: not a folder` : `${absolute}: cannot create (${at} is not a folder)`);
    missing.unshift(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // Created meanwhile by another process: fine when it is a folder.
      if (code === 'EEXIST' && kindOf(level) === 'folder') continue;
      throw new DataFolderError(`${absolute}: cannot create (${REASONS[code] ?? code})`);
    }
  }
}
