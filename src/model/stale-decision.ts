import { JobActionType } from './job';
import { WatermarkValue, type WatermarkType } from './watermark-value';

/**
 * When a message that comes back is stale: the decision of the applied-version guard, pure.
 *
 * A change is stale when a change of its record with a newer change tracker was applied since
 * (compared by the job's watermark type): applying it would undo the newer one. An equal tracker
 * is not stale — the same change applied again is harmless, and with coarse stamps (a second)
 * two different changes can share a tracker, so of the two the later one applied must not be
 * dropped. A tracker that cannot be compared never makes a message stale.
 */

/** A change recorded as applied to a record. */
export interface RecordedChange {
  readonly jobName: string;
  /** `NewUpdate` or `Delete`. */
  readonly action: string;
  /** Canonical under `type`. */
  readonly changeTracker: string;
  readonly type: WatermarkType;
}

/** Actions whose messages are guarded: a state of the record that a later one replaces. */
export function isGuardedAction(action: string): boolean {
  return action === JobActionType.NewUpdate || action === JobActionType.Delete;
}

/**
 * Of `recorded` (the rows found for the change's record), the newest one newer than `change`;
 * undefined when none is (the change may be applied). Rows recorded under another watermark type
 * than `type` (the job's, when known; else each row's own) are not comparable and do not count.
 */
export function newestRecorded(
  change: { readonly changeTracker: string },
  type: WatermarkType | undefined,
  recorded: readonly RecordedChange[],
): RecordedChange | undefined {
  let newest: RecordedChange | undefined;
  for (const row of recorded) {
    if (type !== undefined && row.type !== type) continue;
    if (compare(row.type, change.changeTracker, row.changeTracker) >= 0) continue;
    if (newest === undefined || compare(row.type, newest.changeTracker, row.changeTracker) < 0) newest = row;
  }
  return newest;
}

/** The reason an operator reads on a stale message in `sbqignored` or in the mover's report. */
export function staleReason(newer: RecordedChange): string {
  const what = newer.action === JobActionType.Delete ? 'delete' : 'change';
  return `superseded: a newer ${what} of this record (change tracker ${newer.changeTracker}, job "${newer.jobName}") was applied since`;
}

/** Orders two trackers; 0 (equal, so never stale) when either is not a value of `type`. */
function compare(type: WatermarkType, a: string, b: string): number {
  try {
    return WatermarkValue.compare(type, a, b);
  } catch {
    return 0;
  }
}
