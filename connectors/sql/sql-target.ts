import { toJsonValue } from '../base/connector-base';
import type { TargetConnector, UpsertContext, UpsertResult } from '../base/target-connector';
import { toText } from '../base/operations';
import { ConfigError, PermanentError } from '../../src/model/errors';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams } from './dialect';

export interface SqlTargetOptions {
  connectionName: string;
  /** Column read by `getTargetVersion` unless the mapping names one (`target.versionField`). Default: none. */
  versionField?: string;
}

/**
 * Applies messages to one SQL table per mapping (`mapping.target.entity`): upsert by the target
 * key (`UPDATE … WHERE key`, and when no row matched `INSERT … ON CONFLICT (key) DO UPDATE`,
 * which needs a primary key or unique index on exactly those columns), delete by key,
 * `RETURNING` the response fields.
 */
export class SqlTarget implements TargetConnector {
  constructor(
    private readonly db: SqlDatabase,
    private readonly options: SqlTargetOptions,
  ) {}

  async upsert(message: QueueMessage, mapping: Mapping, context: UpsertContext = {}): Promise<UpsertResult> {
    const { dialect } = this.db;
    const entity = this.table(mapping);
    const record: Record<string, JsonValue> = { ...message.targetKey, ...message.fields };
    const keys = mapping.target.key.map((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": target.key[${i}]`));
    for (const key of mapping.target.key) {
      if (record[key] === undefined) throw new PermanentError(`message for ${entity} has no value for target key field "${key}"`);
    }
    const names = Object.keys(record);
    const returning = (context.responseMapping ?? []).map((r) => r.from);
    const returningSql = ` RETURNING ${
      returning.length > 0 ? returning.map((f) => quoteIdentifier(f, `mapping "${mapping.name}": responseMapping.from`)).join(', ') : '1 AS "found"'
    }`;
    const column = (name: string) => quoteIdentifier(name, `mapping "${mapping.name}": target field`);
    const nonKeys = names.filter((name) => !mapping.target.key.includes(name));
    // Update first: a mapping often writes only some columns of an existing record (e.g. a
    // response job writing a number back), and INSERT would fail on the columns it lacks.
    let rows: Record<string, unknown>[] = [];
    if (nonKeys.length > 0) {
      const params = new SqlParams(dialect);
      const set = nonKeys.map((name) => `${column(name)} = ${params.add(record[name])}`).join(', ');
      const where = mapping.target.key.map((key, i) => `${keys[i]} = ${params.add(record[key])}`).join(' AND ');
      rows = await this.db.query(`UPDATE ${entity} SET ${set} WHERE ${where}${returningSql}`, params.values, `update ${entity}`);
    }
    if (rows.length === 0) {
      const params = new SqlParams(dialect);
      const columns = names.map(column);
      const values = names.map((name) => params.add(record[name]));
      const updates = columns.filter((c) => !keys.includes(c));
      // Updating a key to itself keeps RETURNING working when every column is a key.
      const set = (updates.length > 0 ? updates : keys).map((c) => `${c} = excluded.${c}`).join(', ');
      const sql = `INSERT INTO ${entity} (${columns.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${set}${returningSql}`;
      rows = await this.db.query(sql, params.values, `upsert into ${entity}`);
    }
    if (returning.length === 0) return {};
    const row = rows[0] ?? {};
    const returned: Record<string, JsonValue> = {};
    for (const field of returning) returned[field] = toJsonValue(row[field], `returned field "${field}"`);
    return { returned };
  }

  async delete(message: QueueMessage, mapping: Mapping): Promise<void> {
    const entity = this.table(mapping);
    const params = new SqlParams(this.db.dialect);
    await this.db.query(`DELETE FROM ${entity} WHERE ${this.keyCondition(message, mapping, params)}`, params.values, `delete from ${entity}`);
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
    const field = versionFieldOf(mapping) ?? this.options.versionField;
    if (!field) {
      throw new ConfigError(
        `connection "${this.options.connectionName}": skipOutdatedMessages needs the target's version column: set settings.versionField`,
      );
    }
    const entity = this.table(mapping);
    const params = new SqlParams(this.db.dialect);
    const column = quoteIdentifier(field, `connection "${this.options.connectionName}": versionField`);
    const sql = `SELECT ${column} AS "version" FROM ${entity} WHERE ${this.keyCondition(message, mapping, params)} LIMIT 1`;
    const [row] = await this.db.query(sql, params.values, `read the version in ${entity}`);
    return row === undefined || row.version === null || row.version === undefined ? null : toText(row.version);
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

/** A mapping-level version column (`mapping.target.versionField`), when the configuration has one. */
function versionFieldOf(mapping: Mapping): string | undefined {
  const { target } = mapping;
  return 'versionField' in target && typeof target.versionField === 'string' ? target.versionField : undefined;
}
