import { toText } from '../base/operations';
import type { CurrentTrackers } from '../base/source-connector';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { joinSourceKey } from '../../src/model/source-key';
import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams, type SqlRow } from './dialect';
import { watermarkExpression } from './postgres-xmin';
import { keyCondition } from './sql-key-match';
import { renderFilter } from './sql-query';
import { currentChangeTracker } from './sql-row-change';

/** Records asked for in one statement: a few hundred bound values at most, under every engine's limit. */
export const CURRENT_TRACKERS_READ_SIZE = 100;

/** Column alias of the "inside the job's filter" flag. */
const IN_SCOPE = '__highwater_in_scope';

/**
 * The current change tracker of the records named by `sourceKeys` (message `sourceKey`s), read
 * by key from the mapping's source table, a statement per {@link CURRENT_TRACKERS_READ_SIZE}
 * records. Rows are matched back to the keys by the text detection builds a `sourceKey` from, so
 * a row found by a looser SQL comparison never answers for another key. See
 * `SourceConnector.currentTrackers` for what the answer means.
 * @throws ConfigError for a mapping or job that names no plain identifier; what `db.query` throws.
 */
export async function readCurrentTrackers(db: SqlDatabase, mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<CurrentTrackers> {
  const found = new Map<string, string | null>();
  const wanted = new Set(sourceKeys);
  const unique = [...wanted];
  for (let i = 0; i < unique.length; i += CURRENT_TRACKERS_READ_SIZE) {
    const { sql, params, operation } = currentTrackersQuery(db, mapping, job, unique.slice(i, i + CURRENT_TRACKERS_READ_SIZE));
    for (const row of await db.query(sql, params, operation)) {
      const key = joinSourceKey(mapping.source.key.map((k) => toText(row[k])));
      if (wanted.has(key)) found.set(key, trackerOf(db, row, job));
    }
  }
  return found;
}

/** `SELECT keys, watermark, in-scope flag FROM entity WHERE <the keys>` (see {@link keyCondition}). */
function currentTrackersQuery(db: SqlDatabase, mapping: Mapping, job: Job, keys: readonly string[]): { sql: string; params: unknown[]; operation: string } {
  const { dialect } = db;
  const entity = quoteEntity(mapping.source.entity, dialect, `mapping "${mapping.name}": source.entity`);
  const columns = mapping.source.key.map((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": source.key[${i}]`));
  const watermark = quoteIdentifier(job.watermark.field, `job "${job.name}": watermark.field`);
  // PostgreSQL `xmin`: the widened transaction id detection reads (postgres-xmin.ts), under the field's name.
  const tracker = watermarkExpression(dialect, job, watermark);
  const params = new SqlParams(dialect);
  const filter = renderFilter(job.filter, params, `job "${job.name}": filter`);
  const scope = filter ? `CASE WHEN ${filter} THEN 1 ELSE 0 END` : '1';
  const selected = [...new Set([...columns, tracker.computed ? `${tracker.sql} AS ${watermark}` : watermark])].join(', ');
  return {
    sql: `SELECT ${selected}, ${scope} AS "${IN_SCOPE}" FROM ${entity} WHERE ${keyCondition(dialect.kind, columns, keys, params)}`,
    params: params.values,
    operation: `read the current ${watermark} of ${keys.length} record(s) in ${entity}`,
  };
}

/** The row's canonical change tracker; null when detection would not send it (outside the filter, a NULL tracker). */
function trackerOf(db: SqlDatabase, row: SqlRow, job: Job): string | null {
  const raw = row[job.watermark.field];
  if (Number(row[IN_SCOPE]) !== 1 || raw === null || raw === undefined) return null;
  return currentChangeTracker(db.dialect, row, job);
}
