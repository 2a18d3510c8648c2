import type { CurrentTrackers, SourceConnector } from '../../../connectors/base/source-connector';
import { FORCE_APPLY } from '../../bus/message-properties';
import { JobActionType } from '../../model/job';
import type { QueueMessage } from '../../model/queue-message';
import { isGuardedAction } from '../../model/stale-decision';
import { canonicalJson } from '../../model/fields-hash';
import { parseWatermarkType, WatermarkValue, type WatermarkType } from '../../model/watermark-value';
import { errorMessage } from '../../platform/errors';
import type { ProcessingDependencies } from '../processing-dependencies';
import type { Work } from './triage';
import type { Verdict } from './verdict';

/**
 * A batch applied to its target whose host died (or whose lock was lost) before completing it
 * comes back from the broker with `deliveryCount` 2 or more — possibly after newer changes of
 * its records were applied meanwhile, which nothing recorded (the applied-version store keeps
 * only watched records). Our own copies (retries, deferrals, side queues, resubmits) are new
 * messages starting at delivery 1, and their records are watched; so the delivery count alone
 * tells these redeliveries apart.
 *
 * Such a message is checked against its source: when the record's change tracker there is newer
 * than the message's, or an upserted record is gone from the source (its delete follows or was
 * applied), a newer state of the record was, or will be, sent — the message is ignored like a
 * stale one (`sbqignored`, with the reason). Equal is not newer (coarse stamps can share a value).
 * A record outside the job's filter now, or with a NULL tracker, is applied as before: its newer
 * change will not be sent, so the message may be the last state the target gets.
 */
export function redelivered(w: Work): boolean {
  return w.item.message.deliveryCount > 1;
}

/** Why `message` is superseded at its source, or undefined when it may be applied (pure). */
export function supersededAtSource(message: Pick<QueueMessage, 'action' | 'sourceKey' | 'changeTracker'>, type: WatermarkType, current: CurrentTrackers, entity: string): string | undefined {
  if (!current.has(message.sourceKey)) {
    if (message.action !== JobActionType.NewUpdate) return undefined;
    return `superseded at the source: the record is no longer in ${entity} (its delete follows or was applied)`;
  }
  const tracker = current.get(message.sourceKey);
  if (tracker === null || tracker === undefined) return undefined;
  let order: number;
  try {
    order = WatermarkValue.compare(type, tracker, message.changeTracker);
  } catch {
    return undefined; // A tracker that is no value of the type cannot be ordered: never stale.
  }
  return order > 0 ? `superseded at the source: the record's change tracker in ${entity} is now ${tracker}, newer than this change's ${message.changeTracker}` : undefined;
}

/**
 * For a source that cannot order its records' trackers (change tracking by delta links): a
 * redelivered change whose record now reads differently was followed by a newer change, which
 * the next delta read sends; an upserted record that is gone was deleted (its delete follows).
 * Equal is applied: it may be the last state the target gets. Pure.
 */
export function supersededByRecord(message: Pick<QueueMessage, 'action' | 'sourceKey' | 'fields'>, records: ReadonlyMap<string, QueueMessage>, entity: string): string | undefined {
  const now = records.get(message.sourceKey);
  if (!now || now.action === JobActionType.Delete) {
    return message.action === JobActionType.NewUpdate ? `superseded at the source: the record is no longer in ${entity} (its delete follows or was applied)` : undefined;
  }
  if (message.action !== JobActionType.NewUpdate) return undefined;
  return canonicalJson(now.fields) === canonicalJson(message.fields) ? undefined : `superseded at the source: the record in ${entity} has changed since (its newer change follows)`;
}

/**
 * The source check, after the applied-version guard: redelivered upserts and deletes are read
 * from their job's source, one read per job for the whole batch (see `currentTrackers`). A source
 * without that read, or one that fails, leaves its messages to be applied as before, with a
 * warning: the redelivery would be no safer as a retry copy (copies are not redeliveries), and a
 * source outage must not hold back a target's deliveries.
 */
export async function checkAtSource(work: readonly Work[], deps: ProcessingDependencies): Promise<{ kept: Work[]; verdicts: Verdict[] }> {
  const sources = deps.sources;
  const checked = sources ? work.filter((w) => isGuardedAction(w.message.action) && redelivered(w) && w.item.message.applicationProperties[FORCE_APPLY] !== true) : [];
  if (!sources || checked.length === 0) return { kept: [...work], verdicts: [] };
  const byJob = new Map<string, Work[]>();
  for (const w of checked) {
    const group = byJob.get(w.job.name);
    if (group) group.push(w);
    else byJob.set(w.job.name, [w]);
  }
  const out = new Set<Work>();
  const verdicts: Verdict[] = [];
  await Promise.all(
    [...byJob.values()].map(async (group) => {
      const { job, mapping } = group[0];
      const type = parseWatermarkType(job.watermark.type);
      if (!type) return;
      let current: CurrentTrackers | undefined;
      let records: Map<string, QueueMessage> | undefined;
      try {
        const source: SourceConnector = await sources.source(job.source);
        const keys = group.map((w) => w.message.sourceKey);
        current = await source.currentTrackers?.(mapping, job, keys);
        // A change-tracking job's trackers are its runs' stamps, not the records': compare the records instead.
        if (!current && source.readByKeys) records = await source.readByKeys(mapping, job, keys);
      } catch (err) {
        deps.log.warn(`job "${job.name}": ${group.length} redelivered message(s) not checked against source "${job.source}" (applied as delivered): ${errorMessage(err)}`);
        return;
      }
      if (!current && !records) return;
      for (const w of group) {
        const reason = current ? supersededAtSource(w.message, type, current, mapping.source.entity) : supersededByRecord(w.message, records!, mapping.source.entity);
        if (!reason) continue;
        out.add(w);
        verdicts.push({ kind: 'ignored', work: w, reason });
      }
    }),
  );
  if (verdicts.length > 0) {
    const jobs = [...new Set(verdicts.map((v) => (v.kind === 'ignored' ? v.work.job.name : '')))].join(', ');
    deps.log.info(`${verdicts.length} redelivered message(s) (job ${jobs}) are superseded at their source by a newer change: to the ignored queue, not applied`);
  }
  return { kept: work.filter((w) => !out.has(w)), verdicts };
}
