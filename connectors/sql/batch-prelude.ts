import type { ItemOutcome, TargetBatch } from '../base/target-batch';
import { JobActionType } from '../../src/model/job';
import { quoteEntity, quoteIdentifier, type SqlDialect } from './dialect';
import { type BatchItem, batchItems, returningOf, type SqlBatchContext } from './sql-batch';
import { versionColumnOf } from './sql-records';

/**
 * What the PostgreSQL and MariaDB/MySQL batch writers derive from a batch before they look at the
 * table: the quoted table, its key and returned fields checked as identifiers, the version column,
 * the items (a message without a complete key failed at once), and the columns to look up.
 */
export interface BatchPrelude {
  /** The table, quoted for the dialect. */
  readonly entity: string;
  readonly keys: readonly string[];
  /** `responseMapping[].from` fields, returned per item. */
  readonly returning: readonly string[];
  readonly deleting: boolean;
  /** The column compared by the version check; none for deletes and batches without a check. */
  readonly versionColumn?: string;
  /** One slot per message; the failures found so far are in place. */
  readonly outcomes: ItemOutcome[];
  readonly items: BatchItem[];
  /** Every column the batch names (keys, returned, version, and the items' fields unless deleting). */
  readonly names: Set<string>;
}

/**
 * @throws ConfigError naming the mapping property for a table, key, returned field or version
 *   field that is no valid identifier, or a missing version field.
 */
export function batchPrelude(
  batch: Pick<TargetBatch, 'mapping' | 'action' | 'messages' | 'responseMapping' | 'versionCheck'>,
  dialect: SqlDialect,
  context: Pick<SqlBatchContext, 'connectionName' | 'versionField'>,
): BatchPrelude {
  const { mapping } = batch;
  const outcomes = new Array<ItemOutcome>(batch.messages.length);
  const entity = quoteEntity(mapping.target.entity, dialect, `mapping "${mapping.name}": target.entity`);
  const keys = mapping.target.key;
  keys.forEach((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": target.key[${i}]`));
  const returning = returningOf(batch);
  returning.forEach((f) => quoteIdentifier(f, `mapping "${mapping.name}": responseMapping.from`));
  const deleting = batch.action === JobActionType.Delete;
  const versionColumn = batch.versionCheck && !deleting ? versionColumnOf(mapping, context.connectionName, context.versionField) : undefined;
  if (versionColumn) quoteIdentifier(versionColumn, `connection "${context.connectionName}": versionField`);

  const items = batchItems(batch, outcomes);
  const names = new Set<string>([...keys, ...returning, ...(versionColumn ? [versionColumn] : [])]);
  if (!deleting) for (const item of items) for (const name of Object.keys(item.record)) names.add(name);
  return { entity, keys, returning, deleting, versionColumn, outcomes, items, names };
}
