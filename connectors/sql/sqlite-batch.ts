import { bisectGroup, isItemError, type ItemOutcome, type TargetBatch, versionRefuses } from '../base/target-batch';
import { toText } from '../base/operations';
import { JobActionType } from '../../src/model/job';
import { quoteEntity, quoteIdentifier, type SqlDatabase, type SqlSyncTransaction } from './dialect';
import { type BatchItem, batchItems, isTransitiveFailure, MAX_TRANSITIVE_PASSES, placeOutcomes, returningOf, type SqlBatchContext } from './sql-batch';
import { bindFields, returnedFields, versionColumnOf } from './sql-records';
import { blockedDeleteOutcomes } from './blocked-delete';
import { bindExactFields, columnsQuery, SqliteColumnAffinities } from './sqlite-columns';

export type SqliteBatchDatabase = SqlDatabase & Required<Pick<SqlDatabase, 'transactionSync'>>;

/** Writes one item inside the group's transaction; throws the classified error of a statement. */
type RowWriter = (tx: SqlSyncTransaction, item: BatchItem) => ItemOutcome;

/**
 * A NewUpdate or Delete group on SQLite: one `BEGIN IMMEDIATE … COMMIT`, the single-message
 * statements per row (prepared once, better-sqlite3 runs them synchronously, so nothing
 * interleaves). With the default conflict resolution a constraint error rolls back only its
 * statement: that item fails, the others go on. An item that failed on a foreign key runs again
 * after the rest of the group, in the same transaction, while such passes make progress (see
 * {@link MAX_TRANSITIVE_PASSES}): its parent may come later in the group (cheap, and what the
 * group commit did for concurrent single writes).
 *
 * All or nothing otherwise: a group error (missing table, SQLITE_BUSY…) rolls back and rejects;
 * when an error ended the transaction itself (SQLITE_FULL/IOERR/NOMEM, an `ON CONFLICT ROLLBACK`
 * constraint) the writes before it are gone too, so the group rejects, and an item error among
 * those (and a deferred foreign key failing the COMMIT) is isolated by {@link bisectGroup}.
 */
export async function applySqliteBatch(db: SqliteBatchDatabase, batch: TargetBatch, context: SqlBatchContext): Promise<ItemOutcome[]> {
  const outcomes = new Array<ItemOutcome>(batch.messages.length);
  const items = batchItems(batch, outcomes);
  const write = rowWriter(db, batch, context);
  const entity = batch.mapping.target.entity;
  const results = await bisectGroup(items, (subset) => db.transactionSync((tx) => runRows(tx, subset, write), `apply ${subset.length} to "${entity}"`));
  const placed = placeOutcomes(outcomes, items, results);
  // After the re-passes: what a foreign key still refuses on a DELETE has dependent rows.
  return batch.action === JobActionType.Delete ? blockedDeleteOutcomes(placed) : placed;
}

function runRows(tx: SqlSyncTransaction, items: readonly BatchItem[], write: RowWriter): ItemOutcome[] {
  const outcomes = items.map((item) => attempt(tx, item, write));
  for (let pass = 0; pass < MAX_TRANSITIVE_PASSES; pass++) {
    let applied = false;
    outcomes.forEach((outcome, i) => {
      if (!isTransitiveFailure(outcome)) return;
      outcomes[i] = attempt(tx, items[i], write);
      applied ||= outcomes[i].status !== 'failed';
    });
    if (!applied) break;
  }
  return outcomes;
}

function attempt(tx: SqlSyncTransaction, item: BatchItem, write: RowWriter): ItemOutcome {
  try {
    return write(tx, item);
  } catch (error) {
    // Gone with the transaction: the group's earlier writes were rolled back as well.
    if (!tx.active || !isItemError(error)) throw error;
    return { status: 'failed', error };
  }
}

/** The per-row writer of the group's action; statement texts built once per group. */
function rowWriter(db: SqliteBatchDatabase, batch: TargetBatch, context: SqlBatchContext): RowWriter {
  const { dialect } = db;
  const { mapping } = batch;
  const entity = quoteEntity(mapping.target.entity, dialect, `mapping "${mapping.name}": target.entity`);
  const keys = mapping.target.key;
  const where = keys.map((key, i) => `${quoteIdentifier(key, `mapping "${mapping.name}": target.key[${i}]`)} = ?`).join(' AND ');
  if (batch.action === JobActionType.Delete) {
    const sql = `DELETE FROM ${entity} WHERE ${where}`;
    return (tx, item) => {
      tx.run(sql, bindFields(dialect, keys, item.record), `delete from ${entity}`);
      return { status: 'applied' };
    };
  }
  let readVersion: ((tx: SqlSyncTransaction, item: BatchItem) => string | null) | undefined;
  if (batch.versionCheck) {
    const field = versionColumnOf(mapping, context.connectionName, context.versionField);
    const column = quoteIdentifier(field, `connection "${context.connectionName}": versionField`);
    const sql = `SELECT ${column} AS "version" FROM ${entity} WHERE ${where} LIMIT 1`;
    readVersion = (tx, item) => {
      const [row] = tx.run(sql, bindFields(dialect, keys, item.record), `read the version in ${entity}`);
      return row === undefined || row.version === null || row.version === undefined ? null : toText(row.version);
    };
  }
  const returning = returningOf(batch);
  const versionType = batch.versionCheck?.type;
  const columns = context.sqliteColumns ?? new SqliteColumnAffinities();
  const affinities = (tx: SqlSyncTransaction, names: readonly string[]) => {
    const cached = columns.cached(mapping.target.entity, names);
    if (cached) return cached;
    const { sql, params } = columnsQuery(mapping.target.entity);
    return columns.keep(mapping.target.entity, tx.run(sql, params, `read the columns of ${entity}`));
  };
  return (tx, item) => {
    let plan;
    try {
      plan = context.plans.planFor(mapping, item.record, returning);
    } catch (error) {
      return { status: 'failed', error }; // this item's field names: no statement ran
    }
    const types = affinities(tx, plan.insert.fields);
    const first = plan.update ?? plan.insert;
    let values: unknown[];
    try {
      // Bound before any statement runs: a value SQLite would round fails this item alone. The
      // update binds every field of the record (its other fields, then the key), as the insert does.
      values = bindExactFields(dialect, first.fields, item.record, types, entity);
    } catch (error) {
      return { status: 'failed', error }; // a value SQLite cannot keep exactly: no statement ran
    }
    if (readVersion && versionType) {
      const version = readVersion(tx, item);
      if (version !== null && versionRefuses(versionType, item.message.changeTracker, version)) return { status: 'outdated', targetVersion: version };
    }
    // Update first: a mapping may write only some columns of an existing row.
    if (plan.update) {
      const rows = tx.run(plan.update.sql, values, plan.update.operation);
      if (rows.length > 0) return applied(rows[0], returning);
      values = bindExactFields(dialect, plan.insert.fields, item.record, types, entity);
    }
    const rows = tx.run(plan.insert.sql, values, plan.insert.operation);
    return applied(rows[0], returning);
  };
}

function applied(row: Record<string, unknown> | undefined, returning: readonly string[]): ItemOutcome {
  const returned = returnedFields(row, returning);
  return returned ? { status: 'applied', returned } : { status: 'applied' };
}
