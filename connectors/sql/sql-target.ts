import type { TargetConnector, UpsertContext, UpsertResult } from '../base/target-connector';
import { applyOneByOne, type SingleTarget } from '../base/apply-one-by-one';
import type { ItemOutcome, TargetBatch } from '../base/target-batch';
import { toText } from '../base/operations';
import { ConfigError, PermanentError } from '../../src/platform/errors';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams } from './dialect';
import { bindFields, mergeRecord, returnedFields, versionColumnOf } from './sql-records';
import { UpsertPlans } from './upsert-plan';
import { blockedDeleteError } from './blocked-delete';
import { applySqliteBatch, type SqliteBatchDatabase } from './sqlite-batch';
import { bindExactFields, columnsQuery, SqliteColumnAffinities } from './sqlite-columns';
import { PostgresColumnTypes } from './postgres-columns';
import { exactChecks, exactnessError } from './postgres-exact';
import { withJsonArrayLiterals } from './postgres-json-array';
import { PostgresBatchWriter, type PostgresBatchDatabase } from './postgres-batch';
import { type MysqlBatch, type MysqlBatchDatabase, MysqlBatchWriter } from './mysql-batch';

const NO_FIELDS: readonly string[] = [];

export interface SqlTargetOptions {
  connectionName: string;
  /** Column read by `getTargetVersion` unless the mapping names one (`target.versionField`). Default: none. */
  versionField?: string;
  /** Upsert statements kept per target (one per mapping and field set). Default 256. */
  maxUpsertPlans?: number;
}

/**
 * Applies messages to one SQL table per mapping (`mapping.target.entity`): upsert by the target
 * key (`UPDATE … WHERE key`, and when no row matched `INSERT … ON CONFLICT (key) DO UPDATE`,
 * which needs a primary key or unique index on exactly those columns), delete by key,
 * `RETURNING` the response fields. MariaDB / MySQL lack `UPDATE … RETURNING`: their writes,
 * single or batched, go through `mysql-batch.ts`.
 */
export class SqlTarget implements TargetConnector, SingleTarget {
  private readonly plans: UpsertPlans;
  private postgresBatches?: PostgresBatchWriter;
  private mysqlBatches?: MysqlBatchWriter;
  private readonly sqliteColumns = new SqliteColumnAffinities();
  private readonly postgresColumns = new PostgresColumnTypes();

  constructor(
    private readonly db: SqlDatabase,
    private readonly options: SqlTargetOptions,
  ) {
    this.plans = new UpsertPlans(db.dialect, options.maxUpsertPlans);
  }

  async upsert(message: QueueMessage, mapping: Mapping, context: UpsertContext = {}): Promise<UpsertResult> {
    if (this.db.dialect.kind === 'mysql') {
      const outcome = await this.applyOneOnMysql({ mapping, action: JobActionType.NewUpdate, messages: [message], responseMapping: context.responseMapping });
      return outcome.status === 'applied' && outcome.returned ? { returned: outcome.returned } : {};
    }
    const record = mergeRecord(message.targetKey, message.fields);
    const returning = context.responseMapping ? context.responseMapping.map((r) => r.from) : NO_FIELDS;
    const plan = this.plans.planFor(mapping, record, returning);
    const bind = await this.binder(mapping, plan.entity, record, plan.insert.fields);
    // Update first: a mapping often writes only some columns of an existing record (e.g. a
    // response job writing a number back), and INSERT would fail on the columns it lacks.
    let rows: Record<string, unknown>[] = [];
    const insert = { sql: plan.insert.sql, params: bind(plan.insert.fields, record), operation: plan.insert.operation };
    if (plan.update) {
      const update = { sql: plan.update.sql, params: bind(plan.update.fields, record), operation: plan.update.operation };
      if (this.db.firstWithRows) return this.returned(await this.db.firstWithRows([update, insert]), returning);
      rows = await this.db.query(update.sql, update.params, update.operation);
    }
    if (rows.length === 0) rows = await this.db.query(insert.sql, insert.params, insert.operation);
    return this.returned(rows, returning);
  }

  /**
   * How a record's fields are bound, exactly: on SQLite by the table's column affinities
   * (`sqlite-columns.ts`), on PostgreSQL after the column types' checks (`postgres-exact.ts`).
   * @throws PermanentError naming the column of a value the table cannot hold exactly.
   */
  private async binder(
    mapping: Mapping, entity: string, record: Record<string, JsonValue>, names: readonly string[],
  ): Promise<(fields: readonly string[], record: Record<string, JsonValue>) => unknown[]> {
    const { dialect } = this.db;
    if (dialect.kind !== 'sqlite') {
      const types = await this.postgresColumns.of(this.db, entity, names);
      const error = exactnessError(record, exactChecks(types), entity);
      if (error) throw error;
      return (fields, values) => bindFields(dialect, fields, withJsonArrayLiterals(values, types));
    }
    let types = this.sqliteColumns.cached(mapping.target.entity, names);
    if (!types) {
      const { sql, params } = columnsQuery(mapping.target.entity);
      types = this.sqliteColumns.keep(mapping.target.entity, await this.db.query(sql, params, `read the columns of ${entity}`));
    }
    const affinities = types;
    return (fields, values) => bindExactFields(dialect, fields, values, affinities, entity);
  }

  private returned(rows: readonly Record<string, unknown>[], returning: readonly string[]): UpsertResult {
    const returned = returnedFields(rows[0] ?? {}, returning);
    return returned ? { returned } : {};
  }

  async delete(message: QueueMessage, mapping: Mapping): Promise<void> {
    if (this.db.dialect.kind === 'mysql') {
      await this.applyOneOnMysql({ mapping, action: JobActionType.Delete, messages: [message] });
      return;
    }
    const entity = this.table(mapping);
    const params = new SqlParams(this.db.dialect);
    const sql = `DELETE FROM ${entity} WHERE ${this.keyCondition(message, mapping, params)}`;
    // A foreign key refusing a DELETE means dependent rows exist, not a missing parent.
    await this.db.query(sql, params.values, `delete from ${entity}`).catch((err: unknown) => {
      throw blockedDeleteError(err);
    });
  }

  async invokeAction(message: QueueMessage, job: Job): Promise<void> {
    const { dialect } = this.db;
    if (!dialect.functionCall) throw new ConfigError(`job "${job.name}": connector type ${dialect.kind} has no actions to invoke`);
    if (!job.actionName) throw new ConfigError(`job "${job.name}": actionName is required for InvokeAction`);
    const fn = quoteEntity(job.actionName, dialect, `job "${job.name}": actionName`);
    const params = new SqlParams(dialect);
    const args = Object.entries(message.actionParameters ?? message.fields).map(([name, value]) => ({
      name: quoteIdentifier(name, `job "${job.name}": action parameter`),
      placeholder: params.add(value),
    }));
    await this.db.query(dialect.functionCall(fn, args), params.values, `invoke ${fn}`);
  }

  async getTargetVersion(message: QueueMessage, mapping: Mapping): Promise<string | null> {
    const field = versionColumnOf(mapping, this.options.connectionName, this.options.versionField);
    const entity = this.table(mapping);
    const params = new SqlParams(this.db.dialect);
    const column = quoteIdentifier(field, `connection "${this.options.connectionName}": versionField`);
    const sql = `SELECT ${column} AS "version" FROM ${entity} WHERE ${this.keyCondition(message, mapping, params)} LIMIT 1`;
    const [read] = await this.db.query(sql, params.values, `read the version in ${entity}`);
    const row = read && this.db.dialect.messageRow ? this.db.dialect.messageRow(read) : read;
    return row === undefined || row.version === null || row.version === undefined ? null : toText(row.version);
  }

  /**
   * A group in one transaction: SQLite per row in one `BEGIN IMMEDIATE` (`sqlite-batch.ts`),
   * PostgreSQL in multi-row statements (`postgres-batch.ts`); the version check is read and
   * compared inside that transaction. InvokeAction (and a database without transactions) goes
   * one by one.
   */
  applyBatch(batch: TargetBatch): Promise<ItemOutcome[]> {
    const { db } = this;
    if (batch.messages.length === 0) return Promise.resolve([]);
    if (batch.action === JobActionType.InvokeAction) return applyOneByOne(this, batch, 8);
    const context = { connectionName: this.options.connectionName, versionField: this.options.versionField, plans: this.plans, sqliteColumns: this.sqliteColumns };
    if (hasSyncTransactions(db)) return applySqliteBatch(db, batch, context);
    if (db.dialect.kind === 'postgres' && hasTransactions(db)) return (this.postgresBatches ??= new PostgresBatchWriter()).apply(db, batch, context);
    if (db.dialect.kind === 'mysql' && hasTransactions(db)) return this.mysqlWriter().apply(db, batch, context);
    return applyOneByOne(this, batch, 64);
  }

  private mysqlWriter(): MysqlBatchWriter {
    return (this.mysqlBatches ??= new MysqlBatchWriter());
  }

  /**
   * MariaDB / MySQL have no `UPDATE … RETURNING`: a single message goes through the batch writer
   * (one transaction: lock, update or insert, read back), and its failure is thrown.
   */
  private async applyOneOnMysql(batch: MysqlBatch): Promise<ItemOutcome> {
    if (!hasTransactions(this.db)) throw new Error('a mysql database has transactions');
    const [outcome] = await this.mysqlWriter().apply(this.db, batch, { connectionName: this.options.connectionName, versionField: this.options.versionField });
    if (outcome.status === 'failed') throw outcome.error;
    return outcome;
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  private table(mapping: Mapping): string {
    return quoteEntity(mapping.target.entity, this.db.dialect, `mapping "${mapping.name}": target.entity`);
  }

  private keyCondition(message: QueueMessage, mapping: Mapping, params: SqlParams): string {
    return mapping.target.key
      .map((key, i) => {
        const value = message.targetKey[key];
        if (value === undefined || value === null) throw new PermanentError(`message has no value for target key field "${key}"`);
        return `${quoteIdentifier(key, `mapping "${mapping.name}": target.key[${i}]`)} = ${params.add(value)}`;
      })
      .join(' AND ');
  }
}

const hasSyncTransactions = (db: SqlDatabase): db is SqliteBatchDatabase => typeof db.transactionSync === 'function';
const hasTransactions = (db: SqlDatabase): db is PostgresBatchDatabase & MysqlBatchDatabase => typeof db.transaction === 'function';
