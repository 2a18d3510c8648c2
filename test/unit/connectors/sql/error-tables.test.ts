import { classifyError } from '../../../../connectors/base/error-classification';
import { POSTGRES_ERROR_RULES, postgresErrorCode } from '../../../../connectors/sql/postgres-errors';
import { SQLITE_ERROR_RULES, sqliteErrorCode } from '../../../../connectors/sql/sqlite-errors';
import { MYSQL_ERROR_RULES, mysqlErrorCode } from '../../../../connectors/sql/mysql-errors';

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

describe('MariaDB / MySQL error table', () => {
  // As mysql2 throws them: the server's number in errno, its SQLSTATE, the driver's name in code.
  const serverError = (errno: number, sqlState: string, code: string, message = 'server says no') => Object.assign(new Error(message), { errno, sqlState, code });
  const classify = (err: unknown) => classifyError(err, MYSQL_ERROR_RULES, { codeOf: mysqlErrorCode, operation: 'mysql connection "shop": upsert into "t"' });
  it.each([
    [1213, '40001', 'ER_LOCK_DEADLOCK', 'TransientError'],
    [1205, 'HY000', 'ER_LOCK_WAIT_TIMEOUT', 'TransientError'],
    [1062, '23000', 'ER_DUP_ENTRY', 'PermanentError'],
    [1406, '22001', 'ER_DATA_TOO_LONG', 'PermanentError'],
    [1452, '23000', 'ER_NO_REFERENCED_ROW_2', 'TransitiveError'],
    [1451, '23000', 'ER_ROW_IS_REFERENCED_2', 'TransitiveError'],
    [1048, '23000', 'ER_BAD_NULL_ERROR', 'PermanentError'],
    [4025, '23000', 'ER_CONSTRAINT_FAILED', 'PermanentError'],
    [3819, 'HY000', 'ER_CHECK_CONSTRAINT_VIOLATED', 'PermanentError'],
    [1366, 'HY000', 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD', 'PermanentError'],
    [1054, '42S22', 'ER_BAD_FIELD_ERROR', 'ConfigError'],
    [1146, '42S02', 'ER_NO_SUCH_TABLE', 'ConfigError'],
    [1049, '42000', 'ER_BAD_DB_ERROR', 'ConfigError'],
    [1142, '42000', 'ER_TABLEACCESS_DENIED_ERROR', 'ConfigError'],
    [1040, '08004', 'ER_CON_COUNT_ERROR', 'TransientError'],
    [1927, '70100', 'ER_CONNECTION_KILLED', 'TransientError'],
    [1317, '70100', 'ER_QUERY_INTERRUPTED', 'TransientError'],
  ])('%s (%s, %s) → %s', (errno, sqlState, code, expected) => {
    expect(classify(serverError(errno, sqlState, code)).name).toBe(expected);
  });

  it('classifies failures the server did not send by the driver or Node code (a socket errno is no server number)', () => {
    expect(classify(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { errno: -111, code: 'ECONNREFUSED' })).name).toBe('TransientError');
    expect(classify(Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true })).name).toBe('TransientError');
  });

  it('reports authentication failures without the driver message (it names the user and host)', () => {
    const err = classify(serverError(1045, '28000', 'ER_ACCESS_DENIED_ERROR', "Access denied for user 'sync'@'10.0.0.5' (using password: YES)"));
    expect(err.name).toBe('ConfigError');
    expect(err.message).toBe('mysql connection "shop": upsert into "t": authentication failed (1045)');
    expect(err.cause).toBeUndefined();
  });
});
