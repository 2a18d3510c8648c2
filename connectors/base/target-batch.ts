import type { Job, JobAction } from '../../src/model/job';
import type { Mapping, ResponseFieldMapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { WatermarkValue, type WatermarkType } from '../../src/model/watermark-value';

/**
 * One group of messages for {@link BatchTarget.applyBatch}: one job, one mapping (so one target
 * entity), one action. The batch handler coalesces before it builds a group, so no target key
 * occurs twice in `messages` (a PostgreSQL `ON CONFLICT` statement relies on it).
 */
export interface TargetBatch {
  readonly job: Job;
  readonly mapping: Mapping;
  readonly action: JobAction;
  readonly messages: readonly QueueMessage[];
  /** NewUpdate: return these `from` fields of every written record (response jobs). Default: none. */
  readonly responseMapping?: readonly ResponseFieldMapping[];
  /**
   * NewUpdate of a `skipOutdatedMessages` job: a record is written only when the target has no
   * version for it or its version is not newer than the message's change tracker (compared by
   * this watermark type, as `WatermarkValue.compare` does). The check travels inside the write
   * (one transaction, a conditional statement, or `If-Match`), so that no concurrent writer can
   * slip between check and write. A refused item is `outdated`. Default: no check.
   */
  readonly versionCheck?: { readonly type: WatermarkType };
}

/** What happened to one message of a {@link TargetBatch}. */
export type ItemOutcome =
  | { readonly status: 'applied'; readonly returned?: Record<string, JsonValue> }
  /** The version check refused the write: the target holds a newer version (`targetVersion`). */
  | { readonly status: 'outdated'; readonly targetVersion: string }
  /** This item failed on its own; `error` is classified by the error taxonomy (`src/platform/errors.ts`). */
  | { readonly status: 'failed'; readonly error: unknown };

/**
 * A target that applies many messages per request or transaction.
 */
export interface BatchTarget {
  /**
   * Applies a group and returns one outcome per message, in order.
   *
   * Rejects only when the group as a whole failed and nothing of it is kept (connection lost,
   * 429/503 with `retryAfterMs`, timeout, deadlock, SQLITE_BUSY, a configuration error such as a
   * missing table): the caller retries the whole group, never split. A data error of one item
   * (constraint, validation, 400, missing parent) is that item's `failed` outcome; its neighbours
   * are still applied (targets that cannot tell which item failed bisect with {@link bisectGroup}).
   */
  applyBatch(batch: TargetBatch): Promise<ItemOutcome[]>;
}

/** Whether an error is the data's fault (one item), not the group's: permanent or transitive. */
export function isItemError(err: unknown): boolean {
  const name = err && typeof err === 'object' ? String((err as { name?: unknown }).name) : '';
  return name === 'PermanentError' || name === 'TransitiveError';
}

export interface BisectOptions {
  /** Groups at or below this size that fail with an item error are tried one by one. Default 4. */
  oneByOneAt?: number;
}

/**
 * Isolates the items that fail a group with a data error: `runGroup` applies a subset as one unit
 * (all or nothing) and throws when it fails. An item error (see {@link isItemError}) splits the
 * subset in halves until each failing item stands alone and takes the error as its outcome; its
 * neighbours are applied. Any other error rejects the whole call (the caller retries the group).
 * Bounded: k bad items in n take about 2k·log2(n/k) calls, never more than 2n; ranges of
 * `oneByOneAt` or fewer go one by one (when most of a group is bad, that is what it comes to).
 */
export async function bisectGroup<T>(
  items: readonly T[],
  runGroup: (subset: readonly T[]) => Promise<ItemOutcome[]>,
  options: BisectOptions = {},
): Promise<ItemOutcome[]> {
  const oneByOneAt = options.oneByOneAt ?? 4;
  const outcomes = new Array<ItemOutcome>(items.length);

  const alone = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i++) {
      try {
        const [outcome] = await runGroup([items[i]]);
        outcomes[i] = outcome;
      } catch (err) {
        if (!isItemError(err)) throw err;
        outcomes[i] = { status: 'failed', error: err };
      }
    }
  };

  /** Returns whether the range failed as a whole (with an item error). */
  const attempt = async (from: number, to: number): Promise<boolean> => {
    try {
      const result = await runGroup(items.slice(from, to));
      for (let i = from; i < to; i++) outcomes[i] = result[i - from];
      return false;
    } catch (err) {
      if (!isItemError(err)) throw err;
      if (to - from === 1) outcomes[from] = { status: 'failed', error: err };
      return true;
    }
  };

  const split = async (from: number, to: number): Promise<void> => {
    if (to - from <= oneByOneAt) return alone(from, to);
    const mid = from + Math.ceil((to - from) / 2);
    const leftFailed = await attempt(from, mid);
    const rightFailed = await attempt(mid, to);
    // A failed range of one already holds its outcome.
    if (leftFailed && mid - from > 1) await split(from, mid);
    if (rightFailed && to - mid > 1) await split(mid, to);
  };

  if (items.length === 0) return [];
  if ((await attempt(0, items.length)) && items.length > 1) await split(0, items.length);
  return outcomes;
}

/**
 * Whether a target version refuses a write of `changeTracker` under a version check: the target
 * holds a newer version. A missing version never refuses.
 */
export function versionRefuses(type: WatermarkType, changeTracker: string, targetVersion: string | null | undefined): boolean {
  if (targetVersion === null || targetVersion === undefined) return false;
  return WatermarkValue.compare(type, changeTracker, WatermarkValue.canonicalize(type, targetVersion)) < 0;
}
