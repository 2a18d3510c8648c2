import { bisectGroup, type ItemOutcome, type TargetBatch, versionRefuses } from '../base/target-batch';
import { toText } from '../base/operations';
import { ConfigError, TransientError } from '../../src/platform/errors';
import type { WatermarkType } from '../../src/model/watermark-value';
import { bindCommon, quoteIdentifier, type SqlDatabase, type SqlRow, type SqlTransaction } from './dialect';
import { type BatchItem, placeOutcomes, retryTransitive, type SqlBatchContext } from './sql-batch';
import { returnedFields } from './sql-records';
import { deleteStatement, insertStatement, lockStatement, type PgBatchShape, POSITION, rowsParams, updateStatement, VERSION } from './postgres-batch-sql';
import { PostgresColumnTypes } from './postgres-columns';
import { exactChecks, exactnessError } from './postgres-exact';
import { withJsonArrayLiterals } from './postgres-json-array';
import { blockedDeleteOutcomes } from './blocked-delete';
import { batchPrelude } from './batch-prelude';

export type PostgresBatchDatabase = SqlDatabase & Required<Pick<SqlDatabase, 'transaction'>>;

/** Rounds of lock → update → insert-or-skip before a key that keeps appearing and vanishing fails the group. */
const MAX_LOCK_ROUNDS = 5;

/** What one group writes: the items of one shape, in a statement each (see `postgres-batch-sql.ts`). */
interface Part {
  readonly shape: PgBatchShape;
  /** Positions in the group. */
  readonly positions: number[];
}

/**
 * A NewUpdate or Delete group on PostgreSQL: one transaction on one pooled client, multi-row
 * statements per shape (field set). Update first (a mapping may write only some columns of an
 * existing row), then INSERT the rows that did not exist. With a version check the existing rows
 * are locked (`FOR UPDATE`, in key order) and their versions compared in JS by the job's
 * watermark type; missing rows are inserted with `ON CONFLICT DO NOTHING`, and a row a concurrent
 * writer inserted meanwhile goes through the locked path again. Any error aborts the transaction:
 * a data error is isolated by {@link bisectGroup} (no savepoint per row: more than 64
 * subtransactions in a transaction slow the whole server), any other rejects the group. Items
 * that failed on a missing parent are tried again while that makes progress (`retryTransitive`):
 * a bisection may have split them from a parent in the same group. Within one statement
 * PostgreSQL checks foreign keys at its end, so a child before its parent needs no retry.
 */
export class PostgresBatchWriter {
  private readonly columns = new PostgresColumnTypes();

  async apply(db: PostgresBatchDatabase, batch: TargetBatch, context: SqlBatchContext): Promise<ItemOutcome[]> {
    const { mapping } = batch;
    const prelude = batchPrelude(batch, db.dialect, context);
    const { entity, keys, returning, deleting, versionColumn, outcomes, names } = prelude;
    let items = prelude.items;
    const types = await this.columns.of(db, entity, names);
    if (versionColumn && !types.has(versionColumn)) throw new ConfigError(`connection "${context.connectionName}": versionField "${versionColumn}" is not a column of ${entity}`);
    const checks = exactChecks(types); // numeric columns only, built once per table
    items = items.filter((item) => {
      const error = deleting ? undefined : fieldError(mapping.name, entity, Object.keys(item.record), types) ?? exactnessError(item.record, checks, entity);
      if (error) outcomes[item.index] = { status: 'failed', error };
      return !error;
    });
    if (!deleting) {
      // json[]/jsonb[] values as exact array literals (most tables have none: no copy).
      items = items.map((item) => {
        const record = withJsonArrayLiterals(item.record, types);
        return record === item.record ? item : { ...item, record };
      });
    }

    const op = `apply ${batch.action} to ${entity}`;
    const write = (subset: readonly BatchItem[]) =>
      db.transaction(async (tx) => {
        const group = new GroupWrite(tx, subset, returning, batch.versionCheck?.type);
        for (const part of parts(subset, entity, keys, types, returning, deleting)) await (deleting ? group.remove(part) : group.upsert(part, versionColumn));
        return group.outcomes;
      }, op);
    const results = await bisectGroup(items, write);
    // A bisection splits a parent from its child: its failed children get another go.
    await retryTransitive(results, (positions) => bisectGroup(positions.map((p) => items[p]), write));
    const placed = placeOutcomes(outcomes, items, results);
    // After the re-passes: what a foreign key still refuses on a DELETE has dependent rows.
    return deleting ? blockedDeleteOutcomes(placed) : placed;
  }
}

/**
 * The first problem of an item's field names: not an identifier, or not a column. Both are
 * ConfigErrors: the mapping and the table disagree, every message of the job fails alike and
 * adding the column (or fixing the mapping) heals them all, so its target pauses (outage mode)
 * instead of dead-lettering each message.
 */
function fieldError(mappingName: string, entity: string, names: readonly string[], types: ReadonlyMap<string, string>): Error | undefined {
  for (const name of names) {
    try {
      quoteIdentifier(name, `mapping "${mappingName}": target field`);
    } catch (error) {
      return error as Error;
    }
    if (!types.has(name)) return new ConfigError(`mapping "${mappingName}": ${entity} has no column "${name}"`);
  }
  return undefined;
}

/**
 * The group's items by shape (their field names, in order), run in order of first appearance. A
 * key given twice (the batch handler coalesces, so only by mistake) goes into a later part, so
 * that no statement touches a row twice (`ON CONFLICT` would fail) and the later message wins.
 */
function parts(items: readonly BatchItem[], entity: string, keys: readonly string[], types: ReadonlyMap<string, string>, returning: readonly string[], deleting: boolean): Part[] {
  const byShape = new Map<string, Part>();
  const seen = new Map<string, number>();
  items.forEach((item, position) => {
    const columns = deleting ? keys : Object.keys(item.record);
    const key = JSON.stringify(keys.map((k) => item.record[k]));
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    const id = `${round}\u0000${columns.join('\u0001')}`;
    let part = byShape.get(id);
    if (!part) byShape.set(id, (part = { shape: { entity, keys, columns, types, returning }, positions: [] }));
    part.positions.push(position);
  });
  return [...byShape.keys()].sort((a, b) => parseInt(a, 10) - parseInt(b, 10)).map((id) => byShape.get(id) as Part);
}

/** One transaction's writes; `outcomes` by position in the group. */
class GroupWrite {
  readonly outcomes: ItemOutcome[];

  constructor(
    private readonly tx: SqlTransaction,
    private readonly items: readonly BatchItem[],
    private readonly returning: readonly string[],
    private readonly versionType: WatermarkType | undefined,
  ) {
    this.outcomes = new Array<ItemOutcome>(items.length);
  }

  async remove(part: Part): Promise<void> {
    await this.run(deleteStatement(part.shape), part.positions, part.shape.keys, `delete from ${part.shape.entity}`);
    for (const p of part.positions) this.outcomes[p] = { status: 'applied' };
  }

  async upsert(part: Part, versionColumn: string | undefined): Promise<void> {
    const { shape } = part;
    if (!versionColumn || !this.versionType) {
      const missing = this.applied(part.positions, await this.run(updateStatement(shape), part.positions, shape.columns, `update ${shape.entity}`));
      if (missing.length === 0) return;
      const left = this.applied(missing, await this.run(insertStatement(shape, 'update'), missing, shape.columns, `upsert into ${shape.entity}`));
      if (left.length > 0) throw new TransientError(`upsert into ${shape.entity}: ${left.length} rows neither updated nor inserted`);
      return;
    }
    let pending = part.positions;
    for (let round = 0; round < MAX_LOCK_ROUNDS && pending.length > 0; round++) {
      const locked = await this.run(lockStatement(shape, versionColumn), pending, shape.keys, `lock rows of ${shape.entity}`);
      const found = new Set<number>();
      const writable: number[] = [];
      for (const row of locked) {
        const position = pending[Number(row[POSITION])];
        found.add(position);
        const version = row[VERSION] === null || row[VERSION] === undefined ? null : toText(row[VERSION]);
        if (version !== null && versionRefuses(this.versionType, this.items[position].message.changeTracker, version)) {
          this.outcomes[position] = { status: 'outdated', targetVersion: version };
        } else writable.push(position);
      }
      if (writable.length > 0) this.applied(writable, await this.run(updateStatement(shape), writable, shape.columns, `update ${shape.entity}`));
      const missing = pending.filter((p) => !found.has(p));
      if (missing.length === 0) return;
      // Inserted meanwhile by another writer: not returned here, locked and compared next round.
      pending = this.applied(missing, await this.run(insertStatement(shape, 'skip'), missing, shape.columns, `insert into ${shape.entity}`));
    }
    if (pending.length > 0) throw new TransientError(`insert into ${shape.entity}: rows kept appearing and vanishing under concurrent writers`);
  }

  /** Marks the returned rows applied; returns the positions that were not returned. */
  private applied(positions: readonly number[], rows: readonly SqlRow[]): number[] {
    const done = new Set<number>();
    for (const row of rows) {
      const position = positions[Number(row[POSITION])];
      done.add(position);
      const returned = returnedFields(row, this.returning);
      this.outcomes[position] = returned ? { status: 'applied', returned } : { status: 'applied' };
    }
    return positions.filter((p) => !done.has(p));
  }

  private run(sql: string, positions: readonly number[], names: readonly string[], operation: string): Promise<SqlRow[]> {
    return this.tx.query(sql, rowsParams(positions.map((p) => this.items[p].record), names, bindText), operation);
  }
}

/** A value for a text array element: bytes as bytes (pg writes `\x…`), other objects as JSON text, Date as ISO. */
function bindText(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object') return bindCommon(value);
  return String(value);
}
