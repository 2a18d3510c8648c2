import { stringCode } from '../base/error-classification';
import type { ErrorRule } from '../../src/platform/error-table';

/**
 * Every MariaDB / MySQL error Highwater tells apart, by the server's error number (`errno`, as
 * text), or the driver's / Node's code for failures without one (a refused or lost connection);
 * first match wins, unmatched codes are transient. MariaDB and MySQL share these numbers, apart
 * from the check constraint (MariaDB 4025, MySQL 3819) and the statement timeout (MariaDB 1969,
 * MySQL 3024), which are both listed.
 */
export const MYSQL_ERROR_RULES: readonly ErrorRule[] = [
  // On a DELETE a foreign key means dependent rows exist: reclassified where the delete runs (blocked-delete.ts).
  { code: /^(1452|1216)$/, kind: 'transitive', reason: 'a referenced record is missing (foreign key)' },
  // Only a DELETE (or a key change) meets it: transitive so that a group's re-passes can delete a child first.
  { code: /^(1451|1217)$/, kind: 'transitive', reason: 'dependent records exist (foreign key)' },
  { code: /^(1048|1364)$/, kind: 'permanent', reason: 'a required field is null' },
  { code: /^(4025|3819)$/, kind: 'permanent', reason: 'a check constraint failed' },
  { code: /^(1062|1586)$/, kind: 'permanent', reason: 'a unique value is taken by another record' },
  { code: '1406', kind: 'permanent', reason: 'a value is too long for its column' },
  { code: /^(1264|1265|1292|1366|1367|1411|1690|3140|4038|1918)$/, kind: 'permanent', reason: 'invalid data' },
  // As a missing table: one schema mistake, every message fails alike.
  { code: '1054', kind: 'config', reason: 'a column does not exist' },
  { code: '1146', kind: 'config', reason: 'the table does not exist' },
  { code: '1305', kind: 'config', reason: 'the function or procedure does not exist' },
  { code: '1049', kind: 'config', reason: 'the database does not exist' },
  { code: /^(1142|1143|1227|1370)$/, kind: 'config', reason: 'permission denied' },
  { code: /^(1044|1045|1698)$/, kind: 'config', reason: 'authentication failed', hideDriverMessage: true },
  { code: /^(1064|1149)$/, kind: 'permanent', reason: 'SQL error' },
  { code: '1213', kind: 'transient', reason: 'deadlock' },
  { code: '1205', kind: 'transient', reason: 'lock wait timeout' },
  { code: /^(1040|1203|1041|1135)$/, kind: 'transient', reason: 'the server is out of resources' },
  { code: /^(1053|1077|1927|2006|2013)$/, kind: 'transient', reason: 'connection failure' },
  { code: /^(1317|1969|3024)$/, kind: 'transient', reason: 'statement canceled (timeout)' },
  { code: /^(PROTOCOL_CONNECTION_LOST|PROTOCOL_SEQUENCE_TIMEOUT|ER_CON_COUNT_ERROR|POOL_CLOSED)$/, kind: 'transient', reason: 'connection failure' },
  { code: /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/, kind: 'transient', reason: 'the server is unreachable' },
];

/**
 * The server's error number of a thrown value as text (`1213`), or the driver's / Node's code
 * (`ECONNREFUSED`, `PROTOCOL_CONNECTION_LOST`) for an error the server did not send. Only server
 * errors carry a SQLSTATE; a socket error's `errno` is a negative system number.
 */
export function mysqlErrorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'sqlState' in err) {
    const errno = (err as { errno?: unknown }).errno;
    if (typeof errno === 'number' && errno > 0) return String(errno);
  }
  return stringCode(err);
}
