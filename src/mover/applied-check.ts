import { deserializeQueueMessage } from '../model/queue-message';
import type { Job } from '../model/job';
import { parseWatermarkType } from '../model/watermark-value';
import type { AppliedVersionReader, ChangeRef } from '../storage/applied-version-store';
import { isGuardedAction, staleReason } from '../model/stale-decision';
import type { PlannedMessage } from './plan';

/**
 * Which planned Resubmits the processor would ignore as stale: a newer change of their record was
 * applied since (the applied-version store the processor records in). One read per partition for
 * the whole plan. Messages whose body cannot be read, or that are no upsert or delete, are never
 * stale. @returns the reason by sequence number.
 */
export async function findNewerApplied(
  plan: readonly PlannedMessage[],
  reader: AppliedVersionReader,
  jobs: ReadonlyMap<string, Job> | undefined,
): Promise<Map<string, string>> {
  const asked: Array<{ sequenceNumber: string; change: ChangeRef & { type?: ReturnType<typeof parseWatermarkType> } }> = [];
  for (const entry of plan) {
    if (entry.action !== 'Resubmit') continue;
    let change: ChangeRef;
    try {
      change = deserializeQueueMessage(entry.message.body);
    } catch {
      continue;
    }
    if (!isGuardedAction(change.action)) continue;
    const configured = jobs?.get(change.jobName)?.watermark.type;
    // Without the job's configuration, the type each row was recorded with orders it.
    asked.push({ sequenceNumber: entry.message.sequenceNumber, change: { ...change, type: configured === undefined ? undefined : parseWatermarkType(configured) } });
  }
  const found = await reader.newerApplied(asked.map((a) => a.change));
  const newer = new Map<string, string>();
  asked.forEach((a, i) => {
    const recorded = found[i];
    if (recorded) newer.set(a.sequenceNumber, staleReason(recorded));
  });
  return newer;
}
