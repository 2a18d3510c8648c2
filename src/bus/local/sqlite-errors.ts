import { BusError, isBusError, type BusErrorCode } from '../message-bus';

/**
 * The one table mapping SQLite result codes (better-sqlite3's `err.code`, e.g. `SQLITE_BUSY` or
 * the extended `SQLITE_IOERR_WRITE`) to bus error codes. Matched on the primary code, i.e. the
 * prefix before any extended suffix.
 */
const CODE_BY_SQLITE: Record<string, { code: BusErrorCode; what: string }> = {
  SQLITE_NOTADB: { code: 'Corrupt', what: 'is corrupt (not an SQLite database)' },
  SQLITE_CORRUPT: { code: 'Corrupt', what: 'is corrupt (malformed database image)' },
  SQLITE_BUSY: { code: 'Unavailable', what: 'is locked by another process beyond the busy timeout' },
  SQLITE_LOCKED: { code: 'Unavailable', what: 'is locked by another connection' },
  SQLITE_CANTOPEN: { code: 'Unavailable', what: 'cannot be opened' },
  SQLITE_IOERR: { code: 'Unavailable', what: 'cannot be read or written (I/O error)' },
  SQLITE_FULL: { code: 'Unavailable', what: 'cannot grow (disk full)' },
  SQLITE_READONLY: { code: 'Unavailable', what: 'is read-only' },
  SQLITE_PERM: { code: 'Unavailable', what: 'is not accessible (permission denied)' },
  SQLITE_PROTOCOL: { code: 'Unavailable', what: 'is in use by a process with an incompatible lock' },
};

const PRIMARY_CODES = Object.keys(CODE_BY_SQLITE);

function sqliteCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * Turns anything thrown by SQLite (or by this adapter) into a BusError naming the database
 * file. A BusError passes through unchanged.
 */
export function toBusError(err: unknown, file: string): BusError {
  if (isBusError(err)) return err;
  const code = sqliteCode(err);
  const primary = code && PRIMARY_CODES.find((p) => code === p || code.startsWith(`${p}_`));
  // Not `instanceof Error`: SqliteError may come from another realm (e.g. a jest sandbox).
  const message = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined;
  const detail = typeof message === 'string' ? message : String(err);
  if (primary) {
    const { code: busCode, what } = CODE_BY_SQLITE[primary];
    return new BusError(busCode, `The local bus database ${file} ${what}: ${detail}`, { cause: err });
  }
  return new BusError('Unavailable', `The local bus database ${file} failed: ${detail}`, { cause: err });
}

/** Whether `err` (raw or mapped) is SQLite's "busy": another connection held a lock too long. */
export function isBusy(err: unknown): boolean {
  const cause = isBusError(err) ? err.cause : err;
  const code = sqliteCode(cause);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
