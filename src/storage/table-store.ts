/**
 * The table storage port. Adapters (Azure Table Storage or Azurite, both through
 * `@azure/data-tables`) implement it and expose no SDK types. Every method may throw an error of
 * the taxonomy in `src/platform/errors.ts` (see `table-errors.ts` for how SDK failures map to it).
 */

/**
 * Property values a row may hold. `null` is never stored (Table Storage has no nulls): writing
 * `null` omits the property, and an omitted property reads back as absent.
 */
export type EntityValue = string | number | boolean | Date | null;

export type EntityProperties = Record<string, EntityValue>;

/** One entity, with its own properties apart from the keys (no system properties). */
export interface TableRow {
  partitionKey: string;
  rowKey: string;
  properties: EntityProperties;
}

/**
 * A row as read with its version: an opaque token that changes with every write of the entity
 * (Table Storage's ETag), for the conditional writes {@link TableStore.putIf} and
 * {@link TableStore.deleteIf}.
 */
export interface VersionedRow extends TableRow {
  version: string;
}

/** One action of {@link TableStore.submitBatch}. */
export type TableBatchAction =
  | { kind: 'upsert'; row: TableRow }
  | { kind: 'delete'; partitionKey: string; rowKey: string };

/** Most actions Table Storage accepts in one transaction (all in one partition). */
export const MAX_TRANSACTION_ACTIONS = 100;

/** Access to one table. */
export interface TableStore {
  readonly tableName: string;
  /** The entity, or undefined when it does not exist. */
  get(partitionKey: string, rowKey: string): Promise<TableRow | undefined>;
  /**
   * The entities of one partition with these row keys (missing ones are absent from the map), as
   * the service serves them best: point reads, many at a time, on Azure (a filter of ORed row
   * keys is a partition scan there); queries of 14 ORed row keys on Azurite, where each request
   * costs milliseconds of its CPU (`AzureTableStore`'s `ManyLookups`).
   */
  getMany(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, TableRow>>;
  /** Inserts or replaces the whole entity, unconditionally (no ETag: last writer wins). */
  upsert(row: TableRow): Promise<void>;
  /** All entities of one partition, ordered by row key. */
  queryPartition(partitionKey: string): Promise<TableRow[]>;
  /** Deletes the entity; false when it did not exist. */
  delete(partitionKey: string, rowKey: string): Promise<boolean>;

  /** {@link get} with the entity's version. */
  getVersioned(partitionKey: string, rowKey: string): Promise<VersionedRow | undefined>;
  /** {@link getMany} with each entity's version. */
  getManyVersioned(partitionKey: string, rowKeys: readonly string[]): Promise<Map<string, VersionedRow>>;
  /** {@link queryPartition} with each entity's version. */
  queryPartitionVersioned(partitionKey: string): Promise<VersionedRow[]>;
  /**
   * Optimistic concurrency: replaces the whole entity only when it still has `version` (as read),
   * or with `version` null inserts it only when it does not exist.
   * @returns false, writing nothing, when the check failed (the entity changed, was deleted, or
   *   exists); callers name that for their data (e.g. a `TransientError` "coupling changed").
   */
  putIf(row: TableRow, version: string | null): Promise<boolean>;
  /** Deletes the entity only when it still has `version`; false when it changed or does not exist. */
  deleteIf(partitionKey: string, rowKey: string, version: string): Promise<boolean>;
  /**
   * Submits actions as transactions of at most {@link MAX_TRANSACTION_ACTIONS} and at most
   * 4 MiB of request payload (`transaction-plan.ts`) per partition, in the given order within
   * each partition; different partitions' transactions may run at the same time. Each transaction
   * is all-or-nothing; the batch as a whole is not (a failure leaves other transactions applied,
   * and rejects once the transactions in flight have settled). Deleting a missing entity fails.
   */
  submitBatch(actions: TableBatchAction[]): Promise<void>;
  /** Every entity of the table, ordered by partition key, then row key. */
  list(): Promise<TableRow[]>;
}

/** A storage account's tables. */
export interface TableStorage {
  /** Where the tables live, for messages: e.g. `Azurite at 127.0.0.1:10002`. Never secrets. */
  readonly description: string;
  /** The table, created if missing (once per name; a failed creation is retried next call). */
  table(name: string): Promise<TableStore>;
  /** Releases clients and stops an Azurite this storage started; unusable afterwards. */
  close(): Promise<void>;
}
