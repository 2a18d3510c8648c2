import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { createError } from '../platform/error-table';
import type { HighwaterError } from '../platform/errors';
import { entitySizeBytes, MAX_ENTITY_BYTES, MAX_PROPERTY_CHARS } from './entity-codec';
import { actionsByPartition, assertKeys, assertPropertyNames } from './row-checks';
import { assertTableKey } from './table-key';
import { planTransactions } from './transaction-plan';
import type { EntityProperties, TableBatchAction, TableRow, TableStore, VersionedRow } from './table-store';

/** Most properties of an entity apart from its keys and timestamp (Table Storage: 255 in all). */
const MAX_PROPERTIES = 252;

/** A table name as Table Storage allows it: also safe inside an SQL identifier. */
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9]{2,62}$/;

/** Dates are stored as `{"$d": "<ISO 8601>"}`: no other property value is an object. */
function encode(properties: EntityProperties): string {
  const stored: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(properties)) {
    if (value === null) continue;
    stored[name] = value instanceof Date ? { $d: value.toISOString() } : value;
  }
  return JSON.stringify(stored);
}

function decode(json: string): EntityProperties {
  const stored = JSON.parse(json) as Record<string, unknown>;
  const properties: EntityProperties = {};
  for (const [name, value] of Object.entries(stored)) {
    properties[name] = typeof value === 'object' && value !== null ? new Date((value as { $d: string }).$d) : (value as string | number | boolean);
  }
  return properties;
}

interface StoredRow {
  pk: string;
  rk: string;
  props: string;
  etag: string | null;
}

/**
 * The version of a row last written before versions were kept (`etag` NULL, the column added to
 * an existing file): any write gives the row a fresh random token, so this one never comes back.
 */
const UNVERSIONED = '0';

/** A fresh version for a write: random, so that a row deleted and written again never repeats one. */
function newVersion(): string {
  return randomUUID();
}

/**
 * {@link TableStore} on a table of an SQLite file (the local host's `HIGHWATER_LOCAL_TABLES=sqlite`):
 * the same rows, order and transaction rules as Table Storage, without a server process. Rows the
 * service would refuse (keys, reserved names, more than 252 properties, a string over 32 Ki
 * characters, an entity over 1 MiB, the same entity twice in a transaction, deleting a missing one
 * in a transaction) are refused here with a `PermanentError`, so that what runs locally runs on
 * Azure. SQLite failures are transient (`SQLITE_BUSY` beyond the busy timeout, a full disk), a
 * corrupt file a configuration error.
 */
export class SqliteTableStore implements TableStore {
  private readonly statements: {
    get: Database.Statement<[string, string], StoredRow>;
    upsert: Database.Statement<[string, string, string, string]>;
    delete: Database.Statement<[string, string]>;
    partition: Database.Statement<[string], StoredRow>;
    all: Database.Statement<[], StoredRow>;
    insertIfAbsent: Database.Statement<[string, string, string, string]>;
    replaceIf: Database.Statement<[string, string, string, string, string]>;
    deleteIf: Database.Statement<[string, string, string]>;
  };

  constructor(
    private readonly db: Database.Database,
    readonly tableName: string,
  ) {
    if (!TABLE_NAME.test(tableName)) throw new RangeError(`table name "${tableName}" is not valid: 3-63 letters and digits, starting with a letter`);
    // Table names are case-insensitive in Table Storage.
    const sql = `"t_${tableName.toLowerCase()}"`;
    this.run('create table', () => {
      db.exec(`CREATE TABLE IF NOT EXISTS ${sql} (pk TEXT NOT NULL, rk TEXT NOT NULL, props TEXT NOT NULL, etag TEXT, PRIMARY KEY (pk, rk)) WITHOUT ROWID`);
      addVersionColumn(db, sql);
    });
    const columns = 'pk, rk, props, etag';
    // A row of an older file, never written since, has no etag: it reads, and is checked, as UNVERSIONED.
    this.statements = this.run('prepare', () => ({
      get: db.prepare(`SELECT ${columns} FROM ${sql} WHERE pk = ? AND rk = ?`),
      upsert: db.prepare(`INSERT INTO ${sql} (pk, rk, props, etag) VALUES (?, ?, ?, ?) ON CONFLICT (pk, rk) DO UPDATE SET props = excluded.props, etag = excluded.etag`),
      delete: db.prepare(`DELETE FROM ${sql} WHERE pk = ? AND rk = ?`),
      partition: db.prepare(`SELECT ${columns} FROM ${sql} WHERE pk = ? ORDER BY rk`),
      all: db.prepare(`SELECT ${columns} FROM ${sql} ORDER BY pk, rk`),
      insertIfAbsent: db.prepare(`INSERT INTO ${sql} (pk, rk, props, etag) VALUES (?, ?, ?, ?) ON CONFLICT (pk, rk) DO NOTHING`),
      replaceIf: db.prepare(`UPDATE ${sql} SET props = ?, etag = ? WHERE pk = ? AND rk = ? AND coalesce(etag, '${UNVERSIONED}') = ?`),
      deleteIf: db.prepare(`DELETE FROM ${sql} WHERE pk = ? AND rk = ? AND coalesce(etag, '${UNVERSIONED}') = ?`),
    }));
  }

  async get(partitionKey: string, rowKey: string): Promise<TableRow | undefined> {
    assertKeys(partitionKey, rowKey);
    const row = this.run('get', () => this.statements.get.get(partitionKey, rowKey));
    return row && toRow(row);
  }

  async getVersioned(partitionKey: string, rowKey: string): Promise<VersionedRow | undefined> {
    assertKeys(partitionKey, rowKey);
    const row = this.run('get', () => this.statements.get.get(partitionKey, rowKey));
    return row && toVersionedRow(row);
  }

  async getMany(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, TableRow>> {
    return this.many(partitionKey, rowKeys, toRow);
  }

  async getManyVersioned(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, VersionedRow>> {
    return this.many(partitionKey, rowKeys, toVersionedRow);
  }

  private many<R extends TableRow>(partitionKey: string, rowKeys: readonly string[], convert: (row: StoredRow) => R): Map<string, R> {
    assertTableKey('partition key', partitionKey);
    const found = new Map<string, R>();
    for (const rowKey of rowKeys) assertKeys(partitionKey, rowKey);
    this.run('query', () => {
      for (const rowKey of rowKeys) {
        const row = found.has(rowKey) ? undefined : this.statements.get.get(partitionKey, rowKey);
        if (row) found.set(rowKey, convert(row));
      }
    });
    return found;
  }

  async upsert(row: TableRow): Promise<void> {
    const props = this.checked('upsert', row);
    this.run('upsert', () => this.statements.upsert.run(row.partitionKey, row.rowKey, props, newVersion()));
  }

  async queryPartition(partitionKey: string): Promise<TableRow[]> {
    assertTableKey('partition key', partitionKey);
    return this.run('query', () => this.statements.partition.all(partitionKey).map(toRow));
  }

  async queryPartitionVersioned(partitionKey: string): Promise<VersionedRow[]> {
    assertTableKey('partition key', partitionKey);
    return this.run('query', () => this.statements.partition.all(partitionKey).map(toVersionedRow));
  }

  async delete(partitionKey: string, rowKey: string): Promise<boolean> {
    assertKeys(partitionKey, rowKey);
    return this.run('delete', () => this.statements.delete.run(partitionKey, rowKey).changes > 0);
  }

  async putIf(row: TableRow, version: string | null): Promise<boolean> {
    const props = this.checked('conditional put', row);
    // One statement each: the check and the write are one step for every process on the file.
    return this.run('conditional put', () =>
      version === null
        ? this.statements.insertIfAbsent.run(row.partitionKey, row.rowKey, props, newVersion()).changes > 0
        : this.statements.replaceIf.run(props, newVersion(), row.partitionKey, row.rowKey, version).changes > 0,
    );
  }

  async deleteIf(partitionKey: string, rowKey: string, version: string): Promise<boolean> {
    assertKeys(partitionKey, rowKey);
    return this.run('conditional delete', () => this.statements.deleteIf.run(partitionKey, rowKey, version).changes > 0);
  }

  async submitBatch(actions: TableBatchAction[]): Promise<void> {
    const byPartition = actionsByPartition(actions);
    let failure: unknown;
    // Each transaction as the service would cut it, all or nothing; a failed one does not stop the others.
    for (const transaction of [...byPartition.values()].flatMap((list) => planTransactions(list))) {
      try {
        this.applyTransaction(transaction);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  private applyTransaction(transaction: readonly TableBatchAction[]): void {
    const seen = new Set<string>();
    const prepared = transaction.map((action) => {
      const rowKey = action.kind === 'upsert' ? action.row.rowKey : action.rowKey;
      if (seen.has(rowKey)) throw this.refused('transaction', `the entity "${rowKey}" twice in one transaction`);
      seen.add(rowKey);
      return action.kind === 'upsert' ? { action, props: this.checked('transaction', action.row) } : { action, props: undefined };
    });
    // IMMEDIATE: the write lock is taken (waiting out the busy timeout) before the first statement.
    this.run('transaction', () =>
      this.db.transaction(() => {
        for (const { action, props } of prepared) {
          if (action.kind === 'upsert') this.statements.upsert.run(action.row.partitionKey, action.row.rowKey, props!, newVersion());
          else if (this.statements.delete.run(action.partitionKey, action.rowKey).changes === 0) {
            throw this.refused('transaction', `the entity "${action.rowKey}" to delete does not exist (404 ResourceNotFound)`);
          }
        }
      }).immediate(),
    );
  }

  async list(): Promise<TableRow[]> {
    return this.run('query', () => this.statements.all.all().map(toRow));
  }

  /** The row's stored properties, after the checks the service makes. */
  private checked(operation: string, row: TableRow): string {
    assertKeys(row.partitionKey, row.rowKey);
    assertPropertyNames(row);
    const values = Object.entries(row.properties).filter(([, value]) => value !== null);
    if (values.length > MAX_PROPERTIES) throw this.refused(operation, `${values.length} properties, more than ${MAX_PROPERTIES} (400 TooManyProperties)`);
    for (const [name, value] of values) {
      if (typeof value === 'string' && value.length > MAX_PROPERTY_CHARS) throw this.refused(operation, `property "${name}" holds more than ${MAX_PROPERTY_CHARS} characters (400 PropertyValueTooLarge)`);
    }
    const size = entitySizeBytes(row.partitionKey, row.rowKey, row.properties);
    if (size > MAX_ENTITY_BYTES) throw this.refused(operation, `the entity has ${size} bytes, more than ${MAX_ENTITY_BYTES} (400 EntityTooLarge)`);
    return encode(row.properties);
  }

  private refused(operation: string, what: string): HighwaterError {
    return createError('permanent', `table ${operation} on "${this.tableName}" failed: ${what}`, { details: { table: this.tableName, operation } });
  }

  private run<T>(operation: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw toSqliteTableError(err, operation, this.tableName);
    }
  }
}

function toRow(row: StoredRow): TableRow {
  return { partitionKey: row.pk, rowKey: row.rk, properties: decode(row.props) };
}

function toVersionedRow(row: StoredRow): VersionedRow {
  return { ...toRow(row), version: row.etag ?? UNVERSIONED };
}

/**
 * Adds the `etag` column to a table of a file written before versions were kept; its rows read
 * as {@link UNVERSIONED}. Another process may add it at the same moment: "duplicate column" is fine.
 */
function addVersionColumn(db: Database.Database, sql: string): void {
  const columns = db.prepare(`PRAGMA table_info(${sql})`).all() as Array<{ name: string }>;
  if (columns.some((c) => c.name === 'etag')) return;
  try {
    db.exec(`ALTER TABLE ${sql} ADD COLUMN etag TEXT`);
  } catch (err) {
    if (!/duplicate column/i.test((err as Error).message)) throw err;
  }
}

/** The taxonomy's error for a failure of SQLite (errors of this adapter pass through). */
function toSqliteTableError(err: unknown, operation: string, table: string): unknown {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  const corrupt = code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB');
  const detail = (err as { message?: unknown }).message;
  return createError(corrupt ? 'config' : 'transient', `table ${operation} on "${table}" failed: ${code} ${String(detail)}`, { cause: err, details: { table, operation, code } });
}
