import { type ChangeRun, serializeRows } from '../base/change-page';
import { errorKind } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams, type SqlRow } from './dialect';
import { watermarkExpression } from './postgres-xmin';
import { keyCondition } from './sql-key-match';
import { DELETED_FLAG, renderFilter, softDeleteFlag } from './sql-query';
import { currentChangeTracker, sqlRowChange } from './sql-row-change';

/** Records asked for in one statement: with SQLite's number candidates and a composite key, a few thousand bound values, under every engine's limit. */
export const READ_BY_KEYS_SIZE = 500;

/**
 * The records named by `sourceKeys`, as detection would send them now (see
 * `SourceConnector.readByKeys`): `SELECT *` with the soft-delete flag, by key
 * ({@link keyCondition}), with the job filter and a non-NULL watermark (detection never reads a
 * row whose tracker is NULL), {@link READ_BY_KEYS_SIZE} records a statement; each row becomes its
 * message through the code detection uses (`sqlRowChange`, `serializeRows`). Rows are matched
 * back to the keys by the message's `sourceKey`, so a row found by a looser comparison never
 * answers for another key. A key that is no value of its column's type (text for an integer
 * column: PostgreSQL refuses the statement) is not in the source: a statement refused as invalid
 * data is split until the key it cannot hold is alone, and that key is left out.
 * A row that cannot become a message fails the read even with `job.skipFailedRows`: left out, it
 * would read as a deleted record.
 * @param run the mapping, job, clock and resolver lookups the messages are built with.
 * @throws ConfigError for a mapping or job that names no plain identifier; what `db.query` and
 *   serialization throw.
 */
export async function readSqlByKeys(db: SqlDatabase, run: ChangeRun, sourceKeys: readonly string[]): Promise<Map<string, QueueMessage>> {
  const { mapping, job } = run;
  const strict: ChangeRun = { ...run, job: { ...job, skipFailedRows: false } };
  const wanted = new Set(sourceKeys);
  const unique = [...wanted];
  const found = new Map<string, QueueMessage>();
  for (let i = 0; i < unique.length; i += READ_BY_KEYS_SIZE) {
    const rows = await readRows(db, mapping, job, unique.slice(i, i + READ_BY_KEYS_SIZE));
    const { messages } = await serializeRows(strict, rows, (row) => sqlRowChange(db.dialect, row, currentChangeTracker(db.dialect, row, job)));
    for (const message of messages) if (wanted.has(message.sourceKey)) found.set(message.sourceKey, message);
  }
  return found;
}

/** The rows of `keys`; a statement refused as invalid data is split (see {@link readSqlByKeys}). */
async function readRows(db: SqlDatabase, mapping: Mapping, job: Job, keys: readonly string[]): Promise<SqlRow[]> {
  const { sql, params, operation } = byKeysQuery(db, mapping, job, keys);
  try {
    return await db.query(sql, params, operation);
  } catch (err) {
    if (errorKind(err) !== 'permanent') throw err;
    if (keys.length > 1) {
      const half = Math.ceil(keys.length / 2);
      return [...(await readRows(db, mapping, job, keys.slice(0, half))), ...(await readRows(db, mapping, job, keys.slice(half)))];
    }
    // Alone, the key is the culprit only when the database refuses it without the filter too.
    if (await keyIsReadable(db, mapping, keys[0])) throw err;
    return [];
  }
}

/** `SELECT *, soft-delete flag FROM entity WHERE <keys> AND watermark IS NOT NULL AND <filter>`. */
function byKeysQuery(db: SqlDatabase, mapping: Mapping, job: Job, keys: readonly string[]): { sql: string; params: unknown[]; operation: string } {
  const { dialect } = db;
  const entity = quoteEntity(mapping.source.entity, dialect, `mapping "${mapping.name}": source.entity`);
  const columns = keyColumns(mapping);
  const watermark = quoteIdentifier(job.watermark.field, `job "${job.name}": watermark.field`);
  const params = new SqlParams(dialect);
  const flag = softDeleteFlag(job.softDelete, params, `job "${job.name}"`);
  // PostgreSQL `xmin`: the widened transaction id detection reads (postgres-xmin.ts), under the field's name.
  const tracker = watermarkExpression(dialect, job, watermark);
  const computed = tracker.computed ? `, ${tracker.sql} AS ${watermark}` : '';
  const where = [`(${keyCondition(dialect.kind, columns, keys, params)})`, `${watermark} IS NOT NULL`];
  const filter = renderFilter(job.filter, params, `job "${job.name}": filter`);
  if (filter) where.push(filter);
  return {
    sql: `SELECT *, ${flag} AS "${DELETED_FLAG}"${computed} FROM ${entity} WHERE ${where.join(' AND ')}`,
    params: params.values,
    operation: `read ${keys.length} record(s) by key from ${entity}`,
  };
}

/** Whether the database takes the key's values for its key columns (no filter, no row read). */
async function keyIsReadable(db: SqlDatabase, mapping: Mapping, key: string): Promise<boolean> {
  const entity = quoteEntity(mapping.source.entity, db.dialect, `mapping "${mapping.name}": source.entity`);
  const params = new SqlParams(db.dialect);
  const sql = `SELECT 1 AS "found" FROM ${entity} WHERE ${keyCondition(db.dialect.kind, keyColumns(mapping), [key], params)} LIMIT 0`;
  try {
    await db.query(sql, params.values, `check a key of ${entity}`);
    return true;
  } catch (err) {
    if (errorKind(err) !== 'permanent') throw err;
    return false;
  }
}

function keyColumns(mapping: Mapping): string[] {
  return mapping.source.key.map((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": source.key[${i}]`));
}
