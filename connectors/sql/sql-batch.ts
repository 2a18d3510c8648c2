import { isItemError, type ItemOutcome, type TargetBatch } from '../base/target-batch';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { batchRecord } from './sql-records';
import type { UpsertPlans } from './upsert-plan';
import type { SqliteColumnAffinities } from './sqlite-columns';

/** What the batch writers need from their {@link SqlTarget}. */
export interface SqlBatchContext {
  /** Names the connection in errors. */
  readonly connectionName: string;
  /** The connection's `versionField` setting (a mapping's `target.versionField` wins). Default: none. */
  readonly versionField?: string;
  /** The target's upsert statements (SQLite runs the single-message statements per row). */
  readonly plans: UpsertPlans;
  /** SQLite: the target's column affinities, for binding values exactly (`sqlite-columns.ts`). */
  readonly sqliteColumns?: SqliteColumnAffinities;
}

/** One message of a batch that has a complete target key, with its position in the batch. */
export interface BatchItem {
  readonly index: number;
  readonly message: QueueMessage;
  /** Target key and fields merged. */
  readonly record: Record<string, JsonValue>;
}

/**
 * The batch's messages as items; a message without a value for a target key field gets its
 * `failed` outcome (PermanentError) in `outcomes` at once and is left out.
 */
export function batchItems(batch: Pick<TargetBatch, 'messages' | 'mapping'>, outcomes: ItemOutcome[]): BatchItem[] {
  const items: BatchItem[] = [];
  batch.messages.forEach((message, index) => {
    try {
      items.push({ index, message, record: batchRecord(message, batch.mapping) });
    } catch (error) {
      outcomes[index] = { status: 'failed', error };
    }
  });
  return items;
}

/**
 * Puts the items' outcomes in their places. Rejects, as `applyOneByOne` does, when every item
 * failed with a group error (e.g. a ConfigError for an invalid table name on each): nothing was
 * applied and only fixing the configuration and retrying the group helps.
 */
export function placeOutcomes(outcomes: ItemOutcome[], items: readonly BatchItem[], results: readonly ItemOutcome[]): ItemOutcome[] {
  items.forEach((item, i) => (outcomes[item.index] = results[i]));
  const groupErrors = outcomes.filter((o) => o.status === 'failed' && !isItemError(o.error));
  if (outcomes.length > 0 && groupErrors.length === outcomes.length) throw (groupErrors[0] as { error: unknown }).error;
  return outcomes;
}

/**
 * Passes over the items that failed on a missing parent (TransitiveError) after the rest of the
 * group: a parent may come later in the group (or, after a bisection, have been applied by
 * another part). A pass runs only while the one before applied something.
 */
export const MAX_TRANSITIVE_PASSES = 4;

/** Whether an outcome is a failure on a missing referenced record. */
export function isTransitiveFailure(outcome: ItemOutcome | undefined): boolean {
  return outcome?.status === 'failed' && (outcome.error as { name?: unknown } | undefined)?.name === 'TransitiveError';
}

/**
 * Runs `pass` over the positions of transitive failures in `outcomes` again, in order, up to
 * {@link MAX_TRANSITIVE_PASSES} times while a pass applies at least one of them.
 */
export async function retryTransitive(outcomes: ItemOutcome[], pass: (positions: number[]) => Promise<ItemOutcome[]> | ItemOutcome[]): Promise<void> {
  for (let n = 0; n < MAX_TRANSITIVE_PASSES; n++) {
    const positions = outcomes.flatMap((o, i) => (isTransitiveFailure(o) ? [i] : []));
    if (positions.length === 0) return;
    const results = await pass(positions);
    positions.forEach((p, i) => (outcomes[p] = results[i]));
    if (!results.some((o) => o.status !== 'failed')) return;
  }
}

/** The `responseMapping[].from` fields a batch returns per item. */
export function returningOf(batch: Pick<TargetBatch, 'responseMapping'>): readonly string[] {
  return batch.responseMapping ? batch.responseMapping.map((r) => r.from) : [];
}
