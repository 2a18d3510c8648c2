import { bisectGroup, type ItemOutcome, type TargetBatch, versionRefuses } from '../base/target-batch';
import { toText } from '../base/operations';
import { ConfigError, TransientError } from '../../src/platform/errors';
import type { WatermarkType } from '../../src/model/watermark-value';
import { quoteIdentifier, type SqlDatabase, type SqlRow, type SqlTransaction } from './dialect';
import { type BatchItem, placeOutcomes, retryTransitive, type SqlBatchContext } from './sql-batch';
import { returnedFields } from './sql-records';
import { deleteStatement, insertStatement, lockStatement, type MysqlBatchShape, POSITION, returningStatement, setColumns, type Statement, updateStatement, VERSION } from './mysql-batch-sql';
import { type MysqlColumn, MysqlColumnTypes } from './mysql-columns';
import { mysqlChecks } from './mysql-exact';
import type { MysqlIsolation } from './mysql-dialect';
import { exactnessError } from './postgres-exact';
import { blockedDeleteOutcomes } from './blocked-delete';
import { batchPrelude } from './batch-prelude';

/** A database whose transactions take an isolation level ({@link MysqlDatabase.transaction}). */
export type MysqlBatchDatabase = Omit<SqlDatabase, 'transaction'> & {
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>, operation: string, isolation?: MysqlIsolation): Promise<T>;
};

/** What the writer applies: a target batch, of which the job is not needed. */
export type MysqlBatch = Pick<TargetBatch, 'mapping' | 'action' | 'messages' | 'responseMapping' | 'versionCheck'>;

/**
 * Tries of a group that InnoDB chose as a deadlock's victim (it rolled the whole transaction
 * back), or that met a row another writer inserted after the group found its key missing.
 * After that the group throws its TransientError and the messages are retried as a batch.
 */
const CONFLICT_TRIES = 5;
/**
 * The longest pause before try n is n times this, the pause itself random below it: groups that
 * deadlocked started together, and run again at once they meet again the same way.
 */
const CONFLICT_PAUSE_MS = 25;
const DEADLOCK = '1213';
const DUPLICATE_KEY = '1062';
/** `details.code` of the TransientError a group throws to run again after {@link DUPLICATE_KEY} on a key another writer inserted. */
const INSERT_RACE = 'insert-race';

interface Part {
  readonly shape: MysqlBatchShape;
  /** Positions in the group, in key order (concurrent groups lock keys in one order). */
  readonly positions: number[];
}

/**
 * A NewUpdate or Delete group on MariaDB / MySQL: one READ COMMITTED transaction on one pooled
 * connection, a few statements per shape (field set). For an upsert the existing rows of the keys
 * are locked first (`SELECT … FOR UPDATE`, which reads the newest committed row and holds it to
 * the end), and their versions compared in JS by the job's watermark type when the batch checks
 * versions; the existing rows get one UPDATE, the missing ones one INSERT (no `ON DUPLICATE KEY
 * UPDATE`: it would fail on a NOT NULL column the mapping does not write although the row exists,
 * and it updates whichever row another unique index matches). Response fields are read back
 * inside the transaction, from rows it holds locked. A data error is isolated by
 * {@link bisectGroup}; items that failed on a missing parent are tried again while that makes
 * progress (InnoDB checks foreign keys row by row).
 *
 * Why READ COMMITTED: under REPEATABLE READ the locking read of an absent key locks its gap, gap
 * locks of two transactions do not conflict, and then each one's INSERT waits for the other's gap:
 * concurrent groups inserting into one table deadlocked. Without gap locks nothing keeps another
 * writer from inserting a key this group found missing; its INSERT then fails on the duplicate
 * key (1062; the other writer has committed, else the INSERT would still wait). A plain read of
 * the missing keys tells why: rows there now were inserted by another writer, and the whole group
 * is rolled back and run again, where the lock finds those rows and compares their versions like
 * any existing row (updated, or `outdated`), so the newer version wins whoever commits first. Not
 * re-read with a lock in the same transaction: the duplicate left the group a shared lock on the
 * row, and two groups upgrading theirs to update it deadlock. No row there: the duplicate is
 * another unique index's, the permanent error it is.
 */
export class MysqlBatchWriter {
  private readonly columns = new MysqlColumnTypes();

  /** @param pause waits before a deadlocked group runs again (default: a timer). */
  constructor(private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))) {}

  async apply(db: MysqlBatchDatabase, batch: MysqlBatch, context: Pick<SqlBatchContext, 'connectionName' | 'versionField'>): Promise<ItemOutcome[]> {
    const { mapping } = batch;
    const prelude = batchPrelude(batch, db.dialect, context);
    const { entity, keys, returning, deleting, versionColumn, outcomes, names } = prelude;
    let items = prelude.items;
    const types = await this.columns.of(db, entity, names);
    if (types.size === 0) throw new ConfigError(`mapping "${mapping.name}": the table does not exist: ${entity}`);
    if (!deleting && !(await this.columns.isUniqueKey(db, entity, keys))) {
      throw new ConfigError(`mapping "${mapping.name}": the target key is not the primary key or a unique index: (${keys.join(', ')}) of ${entity}`);
    }
    if (versionColumn && !types.has(versionColumn)) throw new ConfigError(`connection "${context.connectionName}": versionField "${versionColumn}" is not a column of ${entity}`);
    const checks = mysqlChecks(types);
    items = items.filter((item) => {
      const error = fieldError(mapping.name, entity, deleting ? keys : Object.keys(item.record), types) ?? (deleting ? undefined : exactnessError(item.record, checks, entity));
      if (error) outcomes[item.index] = { status: 'failed', error };
      return !error;
    });

    const op = `apply ${batch.action} to ${entity}`;
    const versionType = batch.versionCheck?.type;
    const messageRow = db.dialect.messageRow?.bind(db.dialect) ?? ((row: SqlRow) => row);
    const write = (subset: readonly BatchItem[]) =>
      retryConflicts(this.pause, () =>
        db.transaction(
          async (tx) => {
            const group = new GroupWrite(tx, subset, returning, versionType, messageRow);
            for (const part of parts(subset, entity, keys, types, returning, deleting)) await (deleting ? group.remove(part) : group.upsert(part, versionColumn));
            return group.outcomes;
          },
          op,
          'READ COMMITTED',
        ),
      );
    const results = await bisectGroup(items, write);
    await retryTransitive(results, (positions) => bisectGroup(positions.map((p) => items[p]), write));
    const placed = placeOutcomes(outcomes, items, results);
    return deleting ? blockedDeleteOutcomes(placed) : placed;
  }
}

async function retryConflicts<T>(pause: (ms: number) => Promise<void>, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = codeOf(err);
      if ((code !== DEADLOCK && code !== INSERT_RACE) || attempt >= CONFLICT_TRIES) throw err;
      if (code === DEADLOCK) await pause(Math.floor(Math.random() * CONFLICT_PAUSE_MS * attempt));
    }
  }
}

/** The server's error number a classified error carries. */
const codeOf = (err: unknown) => (err as { details?: { code?: unknown } } | undefined)?.details?.code;

/** The first field that is not an identifier, or not a column: ConfigErrors (the mapping and the table disagree). */
function fieldError(mappingName: string, entity: string, names: readonly string[], types: ReadonlyMap<string, MysqlColumn>): Error | undefined {
  for (const name of names) {
    try {
      quoteIdentifier(name, `mapping "${mappingName}": target field`);
    } catch (error) {
      return error as Error;
    }
    if (!types.has(name)) return new ConfigError(`mapping "${mappingName}": a column does not exist: ${entity} has no column "${name}"`);
  }
  return undefined;
}

/**
 * The group's items by shape, in order of first appearance; a key given twice goes into a later
 * part, so that the later message wins. Positions within a part are in key order.
 */
function parts(items: readonly BatchItem[], entity: string, keys: readonly string[], types: ReadonlyMap<string, MysqlColumn>, returning: readonly string[], deleting: boolean): Part[] {
  const byShape = new Map<string, Part>();
  const seen = new Map<string, number>();
  const keyText = (item: BatchItem) => JSON.stringify(keys.map((k) => item.record[k]));
  items.forEach((item, position) => {
    const columns = deleting ? keys : Object.keys(item.record);
    const key = keyText(item);
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    const id = `${round}\u0000${columns.join('\u0001')}`;
    let part = byShape.get(id);
    if (!part) byShape.set(id, (part = { shape: { entity, keys, columns, types, returning }, positions: [] }));
    part.positions.push(position);
  });
  const ordered = [...byShape.keys()].sort((a, b) => parseInt(a, 10) - parseInt(b, 10)).map((id) => byShape.get(id) as Part);
  for (const part of ordered) part.positions.sort((a, b) => (keyText(items[a]) < keyText(items[b]) ? -1 : keyText(items[a]) > keyText(items[b]) ? 1 : 0));
  return ordered;
}

/** One transaction's writes; `outcomes` by position in the group. */
class GroupWrite {
  readonly outcomes: ItemOutcome[];

  constructor(
    private readonly tx: SqlTransaction,
    private readonly items: readonly BatchItem[],
    private readonly returning: readonly string[],
    private readonly versionType: WatermarkType | undefined,
    /** Returned date-times as messages carry them (ISO 8601 UTC). */
    private readonly messageRow: (row: SqlRow) => SqlRow,
  ) {
    this.outcomes = new Array<ItemOutcome>(items.length);
  }

  async remove(part: Part): Promise<void> {
    await this.run(deleteStatement(part.shape, this.records(part.positions)), `delete from ${part.shape.entity}`);
    for (const p of part.positions) this.outcomes[p] = { status: 'applied' };
  }

  async upsert(part: Part, versionColumn: string | undefined): Promise<void> {
    const { shape, positions } = part;
    const checking = versionColumn !== undefined && this.versionType !== undefined;
    const locked = await this.run(lockStatement(shape, this.records(positions), checking ? versionColumn : undefined), `lock rows of ${shape.entity}`);
    const found = new Set<number>();
    const existing: number[] = [];
    for (const row of locked) {
      const position = positions[Number(row[POSITION])];
      found.add(position);
      const version = row[VERSION] === null || row[VERSION] === undefined ? null : toText(row[VERSION]);
      if (checking && version !== null && versionRefuses(this.versionType as WatermarkType, this.items[position].message.changeTracker, version)) {
        this.outcomes[position] = { status: 'outdated', targetVersion: version };
      } else existing.push(position);
    }
    const missing = positions.filter((p) => !found.has(p));
    if (existing.length > 0 && setColumns(shape).length > 0) await this.run(updateStatement(shape, this.records(existing)), `update ${shape.entity}`);
    if (missing.length > 0) await this.insert(shape, missing);
    const written = [...existing, ...missing];
    for (const p of written) this.outcomes[p] = { status: 'applied' };
    if (this.returning.length === 0 || written.length === 0) return;
    const rows = await this.run(returningStatement(shape, this.records(written)), `read the response fields of ${shape.entity}`);
    for (const row of rows) {
      const returned = returnedFields(this.messageRow(row), this.returning);
      if (returned) this.outcomes[written[Number(row[POSITION])]] = { status: 'applied', returned };
    }
  }

  /** @throws TransientError {@link INSERT_RACE} when another writer inserted one of the keys since they were locked. */
  private async insert(shape: MysqlBatchShape, missing: readonly number[]): Promise<void> {
    try {
      await this.run(insertStatement(shape, this.records(missing)), `insert into ${shape.entity}`);
    } catch (err) {
      if (codeOf(err) !== DUPLICATE_KEY) throw err;
      const now = await this.run(lockStatement(shape, this.records(missing), undefined, false), `read keys of ${shape.entity}`);
      if (now.length === 0) throw err;
      throw new TransientError(`insert into ${shape.entity}: another writer inserted ${now.length} of the group's keys meanwhile`, { cause: err, details: { code: INSERT_RACE } });
    }
  }

  private records(positions: readonly number[]) {
    return positions.map((p) => this.items[p].record);
  }

  private run(statement: Statement, operation: string) {
    return this.tx.query(statement.sql, statement.params, operation);
  }
}
