import { classifyError } from '../../../connectors/base/error-classification';
import { MYSQL_ERROR_RULES, mysqlErrorCode } from '../../../connectors/sql/mysql-errors';
import { POSTGRES_ERROR_RULES, postgresErrorCode } from '../../../connectors/sql/postgres-errors';
import { normalizeErrorMessage } from '../../../src/mover/normalize-error';

describe('normalizeErrorMessage', () => {
  it('replaces particulars so that the same problem groups together', () => {
    expect(normalizeErrorMessage('timeout after 30000 ms (request 7f3c2a10-1b2c-4d5e-8f90-0123456789ab)')).toBe('timeout after <n> ms (request <guid>)');
    expect(normalizeErrorMessage('row changed at 2026-03-01T10:00:00.1234567Z, expected 2026-02-01')).toBe('row changed at <time>, expected <time>');
    expect(normalizeErrorMessage('etag 0x8DC1A2B3C4D5E6F mismatch, trace 4bf92f3577b34da6a3ce929d0e0e4736')).toBe('etag <hex> mismatch, trace <hex>');
    expect(normalizeErrorMessage('order   12345\n not found')).toBe('order <n> not found');
  });

  it('keeps short numbers and words: HTTP 404 and HTTP 500 are different problems', () => {
    expect(normalizeErrorMessage('HTTP 404 Not Found')).toBe('HTTP 404 Not Found');
    expect(normalizeErrorMessage('HTTP 500 deadbeef')).toBe('HTTP 500 deadbeef');
  });

  it('keeps the error code a connector writes beside its words, so the group names what to look up', () => {
    const postgres = classifyError(Object.assign(new Error('new row for relation "customers" violates check constraint "customers_credit_check"'), { code: '23514' }), POSTGRES_ERROR_RULES, {
      codeOf: postgresErrorCode,
      operation: 'postgres connection "erp": upsert into "customers"',
    });
    expect(normalizeErrorMessage(postgres.message)).toBe(
      'postgres connection "erp": upsert into "customers": a check constraint failed (23514): new row for relation "customers" violates check constraint "customers_credit_check"',
    );
    const mysql = classifyError(Object.assign(new Error("Check constraint 'credit_positive' is violated."), { errno: 3819, sqlState: 'HY000', code: 'ER_CHECK_CONSTRAINT_VIOLATED' }), MYSQL_ERROR_RULES, {
      codeOf: mysqlErrorCode,
      operation: 'mysql connection "erp": upsert into "customers"',
    });
    expect(normalizeErrorMessage(mysql.message)).toBe('mysql connection "erp": upsert into "customers": a check constraint failed (3819): Check constraint \'credit_positive\' is violated.');
    // At the end of a message (a hidden driver message) the code stays too.
    expect(normalizeErrorMessage('postgres connection "crm": authentication failed (28000)')).toBe('postgres connection "crm": authentication failed (28000)');
  });

  it('still replaces a number in parentheses that is a value, not a code', () => {
    expect(normalizeErrorMessage('duplicate key: Key (id)=(12345) already exists')).toBe('duplicate key: Key (id)=(<n>) already exists');
    expect(normalizeErrorMessage('order (12345) not found')).toBe('order (<n>) not found');
  });

  it('names a missing message and cuts long ones', () => {
    expect(normalizeErrorMessage(undefined)).toBe('(no error message)');
    expect(normalizeErrorMessage('  ')).toBe('(no error message)');
    const long = normalizeErrorMessage('x'.repeat(500));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
