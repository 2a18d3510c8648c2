import { stringCode } from '../base/error-classification';
import type { ErrorRule } from '../../src/platform/error-table';

/**
 * Every PostgreSQL error Highwater tells apart, by SQLSTATE (or Node errno for network
 * failures), first match wins; unmatched codes are transient.
 */
export const POSTGRES_ERROR_RULES: readonly ErrorRule[] = [
  // On a DELETE the same code means dependent rows exist: reclassified where the delete runs (blocked-delete.ts).
  { code: '23503', kind: 'transitive', reason: 'a referenced record is missing (foreign key)' },
  { code: '23502', kind: 'permanent', reason: 'a required field is null' },
  { code: '23514', kind: 'permanent', reason: 'a check constraint failed' },
  { code: '23505', kind: 'permanent', reason: 'a unique value is taken by another record' },
  { code: /^23/, kind: 'permanent', reason: 'an integrity constraint failed' },
  { code: /^22/, kind: 'permanent', reason: 'invalid data' },
  // As a missing table: one schema mistake, every message fails alike.
  { code: '42703', kind: 'config', reason: 'a column does not exist' },
  { code: '42P01', kind: 'config', reason: 'the table does not exist' },
  { code: '42883', kind: 'config', reason: 'the function does not exist' },
  { code: '42P10', kind: 'config', reason: 'the target key is not the primary key or a unique index' },
  { code: '42501', kind: 'config', reason: 'permission denied' },
  { code: '3D000', kind: 'config', reason: 'the database does not exist' },
  { code: '3F000', kind: 'config', reason: 'the schema does not exist' },
  { code: '28P01', kind: 'config', reason: 'authentication failed', hideDriverMessage: true },
  { code: '28000', kind: 'config', reason: 'authentication failed', hideDriverMessage: true },
  { code: /^42/, kind: 'permanent', reason: 'SQL error' },
  { code: '40001', kind: 'transient', reason: 'serialization failure' },
  { code: '40P01', kind: 'transient', reason: 'deadlock' },
  { code: /^08/, kind: 'transient', reason: 'connection failure' },
  { code: /^57P0/, kind: 'transient', reason: 'the server is shutting down or starting' },
  { code: '57014', kind: 'transient', reason: 'statement canceled (timeout)' },
  { code: /^53/, kind: 'transient', reason: 'the server is out of resources' },
  { code: /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/, kind: 'transient', reason: 'the server is unreachable' },
];

/** The SQLSTATE (or Node errno code) of a thrown value. */
export function postgresErrorCode(err: unknown): string | undefined {
  return stringCode(err);
}
