import { JobActionType, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { isItemError, versionRefuses, type ItemOutcome, type TargetBatch } from './target-batch';
import type { TargetConnector } from './target-connector';

/**
 * The single-message methods {@link applyOneByOne} drives: an adapter's own, beside the port
 * (the processing never calls `invokeAction` or `getTargetVersion` itself).
 */
export interface SingleTarget extends Pick<TargetConnector, 'upsert' | 'delete'> {
  /** Runs the job's target action (`job.actionName`) with the message's parameters. */
  invokeAction(message: QueueMessage, job: Job): Promise<void>;
  /**
   * The target record's change tracker (for a batch's version check), as a string the job's
   * watermark type can canonicalize; null when the record does not exist.
   */
  getTargetVersion(message: QueueMessage, mapping: Mapping): Promise<string | null>;
}

/**
 * A batch applied as single requests, at most `concurrency` at a time: for targets with no bulk
 * request. Its version check reads, then writes: it is only as atomic as the target's single
 * methods make it. Rejects with the first error when every item failed with a group error
 * (nothing was applied and retrying the group is what helps).
 */
export async function applyOneByOne(target: SingleTarget, batch: TargetBatch, concurrency = 8): Promise<ItemOutcome[]> {
  const outcomes = new Array<ItemOutcome>(batch.messages.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < batch.messages.length; i = next++) outcomes[i] = await applyOne(target, batch, batch.messages[i]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batch.messages.length) }, worker));
  const groupErrors = outcomes.filter((o) => o.status === 'failed' && !isItemError(o.error));
  if (outcomes.length > 0 && groupErrors.length === outcomes.length) throw (groupErrors[0] as { error: unknown }).error;
  return outcomes;
}

async function applyOne(target: SingleTarget, batch: TargetBatch, message: QueueMessage): Promise<ItemOutcome> {
  try {
    switch (batch.action) {
      case JobActionType.NewUpdate: {
        if (batch.versionCheck) {
          const version = await target.getTargetVersion(message, batch.mapping);
          if (version !== null && versionRefuses(batch.versionCheck.type, message.changeTracker, version)) return { status: 'outdated', targetVersion: version };
        }
        const result = await target.upsert(message, batch.mapping, { responseMapping: batch.responseMapping ? [...batch.responseMapping] : undefined, job: batch.job });
        return result.returned ? { status: 'applied', returned: result.returned } : { status: 'applied' };
      }
      case JobActionType.Delete:
        await target.delete(message, batch.mapping);
        return { status: 'applied' };
      case JobActionType.InvokeAction:
        await target.invokeAction(message, batch.job);
        return { status: 'applied' };
    }
  } catch (error) {
    return { status: 'failed', error };
  }
}
