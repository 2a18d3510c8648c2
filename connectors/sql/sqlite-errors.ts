import { type ErrorRule, stringCode } from '../base/error-classification';

/**
 * Every SQLite (better-sqlite3) error Highwater tells apart, first match wins; unmatched codes
 * are transient. Codes are extended result codes (`SQLITE_CONSTRAINT_FOREIGNKEY`); SQLite uses
 * `SQLITE_ERROR` for many causes, told apart by message.
 */
export const SQLITE_ERROR_RULES: readonly ErrorRule[] = [
  // On a DELETE the same code means dependent rows exist: reclassified where the delete runs (blocked-delete.ts).
  { code: 'SQLITE_CONSTRAINT_FOREIGNKEY', kind: 'transitive', reason: 'a referenced record is missing (foreign key)' },
  { code: 'SQLITE_CONSTRAINT_NOTNULL', kind: 'permanent', reason: 'a required field is null' },
  { code: 'SQLITE_CONSTRAINT_CHECK', kind: 'permanent', reason: 'a check constraint failed' },
  { code: 'SQLITE_CONSTRAINT_UNIQUE', kind: 'permanent', reason: 'a unique value is taken by another record' },
  { code: 'SQLITE_CONSTRAINT_PRIMARYKEY', kind: 'permanent', reason: 'the primary key is taken by another record' },
  { code: 'SQLITE_CONSTRAINT_DATATYPE', kind: 'permanent', reason: 'a value does not fit the column type' },
  { code: /^SQLITE_CONSTRAINT/, kind: 'permanent', reason: 'a constraint failed' },
  { code: 'SQLITE_MISMATCH', kind: 'permanent', reason: 'datatype mismatch' },
  { code: 'SQLITE_TOOBIG', kind: 'permanent', reason: 'a value is too big' },
  { code: 'SQLITE_RANGE', kind: 'permanent', reason: 'parameter out of range' },
  // better-sqlite3 refuses a file in a missing directory with a TypeError before SQLite is asked:
  // the target cannot be opened, which is no value's fault (its outage mode pauses it).
  { code: 'TypeError', message: /Cannot open database/, kind: 'config', reason: 'the database file cannot be opened (check settings.file)' },
  { code: 'TypeError', kind: 'permanent', reason: 'a value cannot be bound' },
  { code: 'RangeError', kind: 'permanent', reason: 'wrong parameters' },
  { code: /^SQLITE_BUSY/, kind: 'transient', reason: 'the database is busy' },
  { code: /^SQLITE_LOCKED/, kind: 'transient', reason: 'the database is locked' },
  // A file that is missing (connections open with fileMustExist) or not readable: fixed by the user, not by retrying a message.
  { code: /^SQLITE_CANTOPEN/, kind: 'config', reason: 'the database file cannot be opened (check settings.file)' },
  { code: /^SQLITE_IOERR/, kind: 'transient', reason: 'disk I/O error' },
  { code: 'SQLITE_FULL', kind: 'transient', reason: 'the disk is full' },
  { code: /^SQLITE_READONLY/, kind: 'config', reason: 'the database is read-only' },
  { code: 'SQLITE_NOTADB', kind: 'config', reason: 'the file is not a SQLite database' },
  { code: /^SQLITE_CORRUPT/, kind: 'config', reason: 'the database file is corrupt' },
  { code: /^SQLITE_AUTH/, kind: 'config', reason: 'not authorized' },
  { code: 'SQLITE_ERROR', message: /no such table/, kind: 'config', reason: 'the table does not exist' },
  // A missing column is a missing table's twin: the schema and the mapping
  // disagree, every message of the job fails alike, and fixing the schema heals them all: config.
  { code: 'SQLITE_ERROR', message: /no such column|has no column named/, kind: 'config', reason: 'a column does not exist' },
  {
    code: 'SQLITE_ERROR',
    message: /ON CONFLICT clause does not match/,
    kind: 'config',
    reason: 'the target key is not the primary key or a unique index',
  },
  { code: 'SQLITE_ERROR', kind: 'permanent', reason: 'SQL error' },
];

/** The SQLite code of a thrown value; `TypeError` / `RangeError` for binding errors, which have none. */
export function sqliteErrorCode(err: unknown): string | undefined {
  const code = stringCode(err);
  if (code) return code;
  // By name, not instanceof: the driver's errors may come from another realm.
  const name = err && typeof err === 'object' && 'name' in err ? String(err.name) : undefined;
  return name === 'TypeError' || name === 'RangeError' ? name : undefined;
}
