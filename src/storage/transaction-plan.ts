import { MAX_TRANSACTION_ACTIONS, type EntityValue, type TableBatchAction } from './table-store';

/**
 * Largest entity-group transaction Table Storage accepts: "The total payload of the transaction
 * must be no more than 4 MiB" (Performing Entity Group Transactions, Table service REST API).
 */
export const MAX_TRANSACTION_BYTES = 4 * 1024 * 1024;

/**
 * Bytes reserved for the batch's own envelope (the `batch_…` / `changeset_…` boundaries and their
 * headers, ~250 bytes as `@azure/data-tables` 13.3 writes them) and for any misestimate.
 */
export const TRANSACTION_ENVELOPE_BYTES = 64 * 1024;

/**
 * Bytes of one sub-request apart from its JSON body and its keys: the changeset boundary and
 * part headers, the request line with the table URL, and the sub-request's headers (Accept,
 * Content-Type, Prefer, DataServiceVersion, If-Match; no Authorization: the SDK assembles the
 * parts in a pipeline without credentials). About 450 bytes with a 60-character table URL; 1 KiB
 * leaves room for long account and table names.
 */
export const SUBREQUEST_OVERHEAD_BYTES = 1024;

export interface TransactionLimits {
  /** Default {@link MAX_TRANSACTION_ACTIONS} (100). */
  maxActions?: number;
  /** Default {@link MAX_TRANSACTION_BYTES} − {@link TRANSACTION_ENVELOPE_BYTES}. */
  maxBytes?: number;
}

/**
 * The JSON property the SDK writes for a value (`serialize` in `@azure/data-tables` 13.3): dates
 * get an `@odata.type` annotation, strings, numbers and booleans none.
 */
function propertyJson(name: string, value: EntityValue): string {
  const pair = `${JSON.stringify(name)}:${JSON.stringify(value)}`;
  return value instanceof Date ? `${pair},${JSON.stringify(`${name}@odata.type`)}:"Edm.DateTime"` : pair;
}

/**
 * Upper bound of the bytes one action adds to a transaction's request body: its JSON body as
 * UTF-8 (keys included), its keys again in the percent-encoded URL (at most 3 bytes per byte),
 * and {@link SUBREQUEST_OVERHEAD_BYTES}.
 */
export function actionWireBytes(action: TableBatchAction): number {
  const partitionKey = action.kind === 'upsert' ? action.row.partitionKey : action.partitionKey;
  const rowKey = action.kind === 'upsert' ? action.row.rowKey : action.rowKey;
  const keysInUrl = 3 * Buffer.byteLength(partitionKey + rowKey, 'utf8');
  let body = 0;
  if (action.kind === 'upsert') {
    const parts = [`"PartitionKey":${JSON.stringify(partitionKey)}`, `"RowKey":${JSON.stringify(rowKey)}`];
    for (const [name, value] of Object.entries(action.row.properties)) if (value !== null) parts.push(propertyJson(name, value));
    body = Buffer.byteLength(`{${parts.join(',')}}`, 'utf8');
  }
  return SUBREQUEST_OVERHEAD_BYTES + keysInUrl + body;
}

/**
 * Splits the actions of one partition into transactions the service accepts: at most
 * `maxActions` each and at most `maxBytes` of sub-requests each, in the given order. An action
 * larger than `maxBytes` on its own gets a transaction of its own (the service then rejects it
 * with its own error; entities are at most 1 MiB, so this does not happen with valid rows).
 */
export function planTransactions<T extends TableBatchAction>(actions: readonly T[], limits: TransactionLimits = {}): T[][] {
  const maxActions = limits.maxActions ?? MAX_TRANSACTION_ACTIONS;
  const maxBytes = limits.maxBytes ?? MAX_TRANSACTION_BYTES - TRANSACTION_ENVELOPE_BYTES;
  const transactions: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const action of actions) {
    const size = actionWireBytes(action);
    if (current.length > 0 && (current.length >= maxActions || bytes + size > maxBytes)) {
      transactions.push(current);
      current = [];
      bytes = 0;
    }
    current.push(action);
    bytes += size;
  }
  if (current.length > 0) transactions.push(current);
  return transactions;
}
