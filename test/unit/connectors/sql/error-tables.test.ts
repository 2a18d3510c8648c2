import { classifyError } from '../../../../connectors/base/error-classification';
import { POSTGRES_ERROR_RULES, postgresErrorCode } from '../../../../connectors/sql/postgres-errors';
import { SQLITE_ERROR_RULES, sqliteErrorCode } from '../../../../connectors/sql/sqlite-errors';

const withCode = (code: string, message = 'driver says no') => Object.assign(new Error(message), { code });

describe('SQLite error table', () => {
  const kind = (err: unknown) => classifyError(err, SQLITE_ERROR_RULES, { codeOf: sqliteErrorCode, operation: 'op' }).name;
  it.each([
    ['SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed', 'TransitiveError'],
    ['SQLITE_CONSTRAINT_NOTNULL', 'NOT NULL constraint failed: t.x', 'PermanentError'],
    ['SQLITE_CONSTRAINT_CHECK', 'CHECK constraint failed', 'PermanentError'],
    ['SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: t.email', 'PermanentError'],
    ['SQLITE_MISMATCH', 'datatype mismatch', 'PermanentError'],
    ['SQLITE_BUSY', 'database is locked', 'TransientError'],
    ['SQLITE_LOCKED_SHAREDCACHE', 'locked', 'TransientError'],
    ['SQLITE_CANTOPEN', 'unable to open database file', 'ConfigError'],
    ['SQLITE_READONLY', 'attempt to write a readonly database', 'ConfigError'],
    ['SQLITE_ERROR', 'no such table: customers', 'ConfigError'],
    ['SQLITE_ERROR', 'table t has no column named x', 'ConfigError'],
    ['SQLITE_ERROR', 'ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint', 'ConfigError'],
  ])('%s (%s) → %s', (code, message, expected) => {
    expect(kind(withCode(code, message))).toBe(expected);
  });

  it('treats binding errors without a code as permanent', () => {
    expect(kind(new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null'))).toBe('PermanentError');
  });

  it('treats a file in a missing directory as a target that cannot be opened, not a value that cannot be bound', () => {
    // better-sqlite3's own words, thrown before SQLite is asked.
    const err = classifyError(new TypeError('Cannot open database because the directory does not exist'), SQLITE_ERROR_RULES, { codeOf: sqliteErrorCode, operation: 'op' });
    expect(err.name).toBe('ConfigError');
    expect(err.message).toBe('op: the database file cannot be opened (check settings.file) (TypeError): Cannot open database because the directory does not exist');
  });
});

describe('PostgreSQL error table', () => {
  const classify = (err: unknown) => classifyError(err, POSTGRES_ERROR_RULES, { codeOf: postgresErrorCode, operation: 'postgres connection "crm": upsert into "t"' });
  it.each([
    ['23503', 'TransitiveError'],
    ['23502', 'PermanentError'],
    ['23514', 'PermanentError'],
    ['23505', 'PermanentError'],
    ['22P02', 'PermanentError'],
    ['22001', 'PermanentError'],
    ['42703', 'ConfigError'],
    ['42P01', 'ConfigError'],
    ['42P10', 'ConfigError'],
    ['08006', 'TransientError'],
    ['57P01', 'TransientError'],
    ['53300', 'TransientError'],
    ['40P01', 'TransientError'],
    ['ECONNREFUSED', 'TransientError'],
    ['28000', 'ConfigError'],
  ])('%s → %s', (code, expected) => {
    expect(classify(withCode(code)).name).toBe(expected);
  });

  it('reports authentication failures without the driver message', () => {
    const err = classify(withCode('28P01', 'password authentication failed for user "sync"'));
    expect([err.name, err.message]).toEqual(['ConfigError', 'postgres connection "crm": upsert into "t": authentication failed (28P01)']);
  });
});
