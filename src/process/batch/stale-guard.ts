import { ERROR_PROPERTY, FORCE_APPLY, RESUBMITTED_FROM } from '../../bus/message-properties';
import { parseWatermarkType } from '../../model/watermark-value';
import type { ProcessingDependencies } from '../processing-dependencies';
import { isGuardedAction, staleReason } from '../../model/stale-decision';
import type { Work } from './triage';
import { failed, type Verdict } from './verdict';

/**
 * A message that comes back — resubmitted by the dead-letter mover or the scheduled requeue, a
 * retry or deferred copy, a redelivery after a lost lock or a crash — may be older than a change
 * of its record applied since it was sent. A message on its first delivery is not: detection
 * sends the changes of a record in order, and what overtakes it within a batch is coalesced (a
 * race of first deliveries across batches is what `skipOutdatedMessages` is for).
 */
export function comesBack(w: Work): boolean {
  const props = w.item.message.applicationProperties;
  return props[RESUBMITTED_FROM] !== undefined || props[ERROR_PROPERTY.attempt] !== undefined || w.item.message.deliveryCount > 1;
}

/** Resubmitted by a person with `--include-superseded`: applied even over a newer change. */
function forced(w: Work): boolean {
  return w.item.message.applicationProperties[FORCE_APPLY] === true;
}

/**
 * The applied-version guard, before any target call: of the work, the messages that come back
 * and whose record has a newer applied change (of their job, or a delete / upsert of a related
 * job) are ignored — copied to `sbqignored` with the reason, never applied. Reads the store only
 * when some message comes back: one query per partition for the whole batch. When the store
 * cannot be read, those messages fail (retried later) rather than be applied blind.
 */
export async function guardStale(work: readonly Work[], deps: ProcessingDependencies): Promise<{ kept: Work[]; verdicts: Verdict[] }> {
  const store = deps.appliedVersions;
  const checked = store ? work.filter((w) => isGuardedAction(w.message.action) && comesBack(w) && !forced(w)) : [];
  if (!store || checked.length === 0) return { kept: [...work], verdicts: [] };
  const out = new Set<Work>();
  const verdicts: Verdict[] = [];
  try {
    const newer = await store.newerApplied(
      checked.map((w) => ({ ...w.message, type: parseWatermarkType(w.job.watermark.type) })),
    );
    checked.forEach((w, i) => {
      const recorded = newer[i];
      if (!recorded) return;
      out.add(w);
      verdicts.push({ kind: 'ignored', work: w, reason: staleReason(recorded) });
    });
  } catch (err) {
    for (const w of checked) {
      out.add(w);
      verdicts.push(failed(w, err, true));
    }
  }
  if (verdicts.length > 0 && verdicts[0].kind === 'ignored') {
    const jobs = [...new Set(verdicts.map((v) => (v.kind === 'ignored' ? v.work.job.name : '')))].join(', ');
    deps.log.info(`${verdicts.length} message(s) that came back (job ${jobs}) are superseded by a newer change applied since: to the ignored queue, not applied`);
  }
  return { kept: work.filter((w) => !out.has(w)), verdicts };
}

/**
 * Records the applied upserts and deletes in the store (buffered, never awaited): the last
 * applied change tracker per job and record, what {@link guardStale} compares with.
 */
export function recordApplied(verdicts: readonly Verdict[], deps: ProcessingDependencies): void {
  const store = deps.appliedVersions;
  if (!store || store.keepsNothing?.()) return;
  for (const v of verdicts) {
    if (v.kind !== 'applied' || !isGuardedAction(v.work.message.action)) continue;
    const type = parseWatermarkType(v.work.job.watermark.type);
    if (!type) continue;
    const { message, job, mapping } = v.work;
    try {
      store.recordApplied({ jobName: message.jobName, action: message.action, targetKey: message.targetKey, changeTracker: message.changeTracker, target: scopeOf(v.work) }, type);
    } catch (err) {
      // A change tracker that is no value of its type cannot be ordered: nothing to guard with.
      deps.log.warn(`job "${job.name}": applied change of mapping "${mapping.name}" not recorded for the stale-message guard: ${String(err)}`);
    }
  }
}

/**
 * Watches the records whose message is set aside — retried, parked, dead-lettered, deferred,
 * ignored: the ways a message can come back later — so that the changes applied to them from
 * now on are recorded. Awaited before the batch is settled (one transaction, only when something
 * is set aside); a failed write is logged, and the messages are settled all the same.
 */
export async function watchSetAside(verdicts: readonly Verdict[], deps: ProcessingDependencies): Promise<void> {
  const store = deps.appliedVersions;
  if (!store) return;
  const aside = verdicts.flatMap((v) => {
    const w = v.kind === 'failed' || v.kind === 'deferred' || v.kind === 'ignored' ? v.work : undefined;
    return w && isGuardedAction(w.message.action) ? [{ target: scopeOf(w), targetKey: w.message.targetKey }] : [];
  });
  if (aside.length === 0) return;
  try {
    await store.watch(aside);
  } catch (err) {
    deps.log.warn(`${aside.length} record(s) set aside not watched for the stale-message guard: ${String(err)}`);
  }
}

/** A record's scope across jobs: its target connection and entity. */
function scopeOf(w: Work): string {
  return `${w.job.target}\n${w.mapping.target.entity}`;
}
