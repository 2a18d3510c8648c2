import type { TableClient, TransactionAction } from '@azure/data-tables';
import { assertTableKey } from './table-key';
import { actionsByPartition, assertKeys, SYSTEM_PROPERTIES } from './row-checks';
import { isConditionFailed, isNotFound, toStorageError } from './table-errors';
import { planTransactions, type TransactionLimits } from './transaction-plan';
import { ConcurrencyLimit } from '../platform/concurrency-limit';
import { mapLimited } from '../platform/map-limited';
import {
  type EntityProperties,
  type EntityValue,
  type TableBatchAction,
  type TableRow,
  type TableStore,
  type VersionedRow,
} from './table-store';

function odataString(value: unknown): string | undefined {
  // Int64 and Guid arrive as { value: '…', type: 'Int64' } when type conversion is on.
  if (typeof value === 'object' && value !== null && 'value' in value) {
    const inner = (value as { value: unknown }).value;
    return typeof inner === 'string' ? inner : undefined;
  }
  return undefined;
}

function fromSdkValue(value: unknown): EntityValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return odataString(value);
}

function toRow(entity: Record<string, unknown>): TableRow {
  const properties: EntityProperties = {};
  for (const [name, raw] of Object.entries(entity)) {
    if (SYSTEM_PROPERTIES.has(name)) continue;
    const value = fromSdkValue(raw);
    if (value !== undefined) properties[name] = value;
  }
  return { partitionKey: String(entity.partitionKey), rowKey: String(entity.rowKey), properties };
}

function toVersionedRow(entity: Record<string, unknown>): VersionedRow {
  return { ...toRow(entity), version: String(entity.etag) };
}

function toEntity(row: TableRow): Record<string, unknown> & { partitionKey: string; rowKey: string } {
  const entity: Record<string, unknown> & { partitionKey: string; rowKey: string } = {
    partitionKey: row.partitionKey,
    rowKey: row.rowKey,
  };
  for (const [name, value] of Object.entries(row.properties)) {
    if (SYSTEM_PROPERTIES.has(name)) throw new RangeError(`property name "${name}" is reserved`);
    if (value !== null) entity[name] = value;
  }
  return entity;
}

function escapeOData(text: string): string {
  return text.replace(/'/g, "''");
}

/** Row keys per query of `getMany` by query: with the partition key, 15 comparisons, the service's most per filter. */
const ROW_KEYS_PER_QUERY = 14;
/** Queries of one `getMany` in flight at once. */
const QUERIES_AT_ONCE = 8;
/**
 * Point reads of one store (one table) in flight at once, across concurrent `getMany`s: a host
 * runs several batches at a time, and together they must not open hundreds of sockets (a
 * Functions instance has a bounded number of outbound connections).
 */
const POINT_READS_PER_STORE = 64;

/**
 * How `getMany` looks rows up.
 * - `point`: one point read (GET by PartitionKey and RowKey) per key, at most
 *   {@link POINT_READS_PER_STORE} of a store at a time. For Azure: a filter that ORs row keys is
 *   a partition scan there, "not treated as a range query" (Microsoft, "Design for querying"),
 *   so its cost grows with the partition — and the applied hashes and deletions hold a row per
 *   record ever synced.
 * - `query`: filters of {@link ROW_KEYS_PER_QUERY} ORed row keys. For Azurite, where every request
 *   costs milliseconds of its CPU and a query 4–5× less than its point reads (docs/benchmarks.md).
 */
export type ManyLookups = 'point' | 'query';

/** Partitions whose transactions `submitBatch` sends at once (within a partition, one after another). */
export const PARTITIONS_IN_FLIGHT = 8;

function toSdkAction(action: TableBatchAction): TransactionAction {
  return action.kind === 'upsert' ? ['upsert', toEntity(action.row), 'Replace'] : ['delete', { partitionKey: action.partitionKey, rowKey: action.rowKey }];
}

/** {@link TableStore} on an `@azure/data-tables` TableClient (Azure or Azurite). */
export class AzureTableStore implements TableStore {
  private readonly pointReadLimit = new ConcurrencyLimit(POINT_READS_PER_STORE);

  constructor(
    private readonly client: TableClient,
    /** How `submitBatch` splits transactions. Default the service's limits (100 actions, 4 MiB). */
    private readonly limits: TransactionLimits = {},
    /** How `getMany` looks rows up. Default `point` (Azure); `query` for Azurite. */
    readonly lookups: ManyLookups = 'point',
    /**
     * Partitions whose transactions `submitBatch` sends at once. Default {@link PARTITIONS_IN_FLIGHT}
     * (Azure: each transaction is a round trip); 1 for Azurite, whose one process does all the
     * work, so that concurrent transactions only add its overhead (crm-erp 10–15% slower with 8).
     */
    readonly partitionsInFlight = PARTITIONS_IN_FLIGHT,
  ) {}

  get tableName(): string {
    return this.client.tableName;
  }

  /** Creates the table if missing (creating an existing table does not fail). */
  async createIfMissing(): Promise<void> {
    await this.call('create table', () => this.client.createTable());
  }

  async get(partitionKey: string, rowKey: string): Promise<TableRow | undefined> {
    const entity = await this.getEntity(partitionKey, rowKey);
    return entity && toRow(entity);
  }

  async getVersioned(partitionKey: string, rowKey: string): Promise<VersionedRow | undefined> {
    const entity = await this.getEntity(partitionKey, rowKey);
    return entity && toVersionedRow(entity);
  }

  async getMany(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, TableRow>> {
    return this.many(partitionKey, rowKeys, toRow);
  }

  async getManyVersioned(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, VersionedRow>> {
    return this.many(partitionKey, rowKeys, toVersionedRow);
  }

  private async getEntity(partitionKey: string, rowKey: string): Promise<Record<string, unknown> | undefined> {
    assertKeys(partitionKey, rowKey);
    try {
      return await this.client.getEntity<Record<string, unknown>>(partitionKey, rowKey);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw toStorageError(err, 'get', this.tableName);
    }
  }

  private async many<R extends TableRow>(partitionKey: string, rowKeys: readonly string[], convert: (entity: Record<string, unknown>) => R): Promise<Map<string, R>> {
    assertTableKey('partition key', partitionKey);
    const unique = [...new Set(rowKeys)];
    for (const rowKey of unique) assertKeys(partitionKey, rowKey);
    if (this.lookups === 'point') return this.pointReads(partitionKey, unique, convert);
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += ROW_KEYS_PER_QUERY) chunks.push(unique.slice(i, i + ROW_KEYS_PER_QUERY));
    const found = new Map<string, R>();
    for (let i = 0; i < chunks.length; i += QUERIES_AT_ONCE) {
      const results = await Promise.all(
        chunks.slice(i, i + QUERIES_AT_ONCE).map((chunk) =>
          this.collect(`PartitionKey eq '${escapeOData(partitionKey)}' and (${chunk.map((k) => `RowKey eq '${escapeOData(k)}'`).join(' or ')})`, convert),
        ),
      );
      for (const rows of results) for (const row of rows) found.set(row.rowKey, row);
    }
    return found;
  }

  private async pointReads<R extends TableRow>(partitionKey: string, rowKeys: readonly string[], convert: (entity: Record<string, unknown>) => R): Promise<Map<string, R>> {
    const found = new Map<string, R>();
    await Promise.all(
      rowKeys.map(async (rowKey) => {
        const entity = await this.pointReadLimit.run(() => this.getEntity(partitionKey, rowKey));
        if (entity) found.set(rowKey, convert(entity));
      }),
    );
    return found;
  }

  async upsert(row: TableRow): Promise<void> {
    assertKeys(row.partitionKey, row.rowKey);
    await this.call('upsert', () => this.client.upsertEntity(toEntity(row), 'Replace'));
  }

  async queryPartition(partitionKey: string): Promise<TableRow[]> {
    assertTableKey('partition key', partitionKey);
    return this.collect(`PartitionKey eq '${escapeOData(partitionKey)}'`, toRow);
  }

  async queryPartitionVersioned(partitionKey: string): Promise<VersionedRow[]> {
    assertTableKey('partition key', partitionKey);
    return this.collect(`PartitionKey eq '${escapeOData(partitionKey)}'`, toVersionedRow);
  }

  async putIf(row: TableRow, version: string | null): Promise<boolean> {
    assertKeys(row.partitionKey, row.rowKey);
    const entity = toEntity(row);
    // Insert: 409 EntityAlreadyExists. Replace with If-Match: 412 when the ETag moved on, 404 when deleted.
    return this.conditional('conditional put', () =>
      version === null ? this.client.createEntity(entity) : this.client.updateEntity(entity, 'Replace', { etag: version }),
    );
  }

  async deleteIf(partitionKey: string, rowKey: string, version: string): Promise<boolean> {
    assertKeys(partitionKey, rowKey);
    return this.conditional('conditional delete', () => this.client.deleteEntity(partitionKey, rowKey, { etag: version }));
  }

  /** Runs a conditional request: true when done, false when its condition failed (or the entity is missing). */
  private async conditional(operation: string, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      if (isConditionFailed(err) || isNotFound(err)) return false;
      throw toStorageError(err, operation, this.tableName);
    }
  }

  async delete(partitionKey: string, rowKey: string): Promise<boolean> {
    assertKeys(partitionKey, rowKey);
    try {
      await this.client.deleteEntity(partitionKey, rowKey);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw toStorageError(err, 'delete', this.tableName);
    }
  }

  async submitBatch(actions: TableBatchAction[]): Promise<void> {
    const byPartition = actionsByPartition(actions);
    // Partitions side by side: each transaction is a round trip to the service, and a flush of
    // applied hashes or recorded deletes spans a job's 16 partitions.
    await mapLimited([...byPartition.values()], this.partitionsInFlight, async (list) => {
      // At most 100 actions and 4 MiB per transaction: config rows may be up to 1 MiB each.
      for (const transaction of planTransactions(list, this.limits)) {
        const sdkActions = transaction.map(toSdkAction);
        await this.call('transaction', () => this.client.submitTransaction(sdkActions));
      }
    });
  }

  async list(): Promise<TableRow[]> {
    return this.collect(undefined, toRow);
  }

  private async collect<R extends TableRow>(filter: string | undefined, convert: (entity: Record<string, unknown>) => R): Promise<R[]> {
    return this.call('query', async () => {
      const rows: R[] = [];
      const options = filter === undefined ? undefined : { queryOptions: { filter } };
      for await (const entity of this.client.listEntities<Record<string, unknown>>(options)) rows.push(convert(entity));
      return rows;
    });
  }

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toStorageError(err, operation, this.tableName);
    }
  }
}
