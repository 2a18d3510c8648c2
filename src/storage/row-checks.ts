import { assertTableKey } from './table-key';
import type { TableBatchAction, TableRow } from './table-store';

/**
 * What every table-store adapter checks before a request, so that a row the local store takes is
 * one Table Storage takes too (the checks the service makes itself are in each adapter).
 */

/** Properties Table Storage adds to every entity; never part of a row's own properties. */
export const SYSTEM_PROPERTIES: ReadonlySet<string> = new Set(['partitionKey', 'rowKey', 'etag', 'timestamp', 'odata.metadata', 'odata.etag']);

/** @throws ConfigError naming the key when either cannot be a table key. */
export function assertKeys(partitionKey: string, rowKey: string): void {
  assertTableKey('partition key', partitionKey);
  assertTableKey('row key', rowKey);
}

/** @throws RangeError when a property has a reserved name. */
export function assertPropertyNames(row: TableRow): void {
  for (const name of Object.keys(row.properties)) if (SYSTEM_PROPERTIES.has(name)) throw new RangeError(`property name "${name}" is reserved`);
}

/** The actions of a batch per partition, in their order, after checking every key. @throws ConfigError for a key that cannot be a table key. */
export function actionsByPartition(actions: readonly TableBatchAction[]): Map<string, TableBatchAction[]> {
  const byPartition = new Map<string, TableBatchAction[]>();
  for (const action of actions) {
    const partitionKey = action.kind === 'upsert' ? action.row.partitionKey : action.partitionKey;
    assertKeys(partitionKey, action.kind === 'upsert' ? action.row.rowKey : action.rowKey);
    const list = byPartition.get(partitionKey) ?? [];
    list.push(action);
    byPartition.set(partitionKey, list);
  }
  return byPartition;
}
