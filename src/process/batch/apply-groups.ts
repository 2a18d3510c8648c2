import type { ItemOutcome } from '../../../connectors/base/target-batch';
import { isItemError } from '../../../connectors/base/target-batch';
import { safeErrorText } from '../../bus/message-properties';
import { errorKind, errorMessage, PermanentError } from '../../platform/errors';
import { METRIC_NAMES } from '../../telemetry/metrics';
import { JobActionType } from '../../model/job';
import type { JsonValue, QueueMessage } from '../../model/queue-message';
import { parseWatermarkType } from '../../model/watermark-value';
import type { ProcessingDependencies } from '../processing-dependencies';
import type { Admission, TargetHealth } from '../target-health';
import { buildResponseMessage } from '../response-message';
import type { Work } from './triage';
import { failed, type Verdict } from './verdict';

/**
 * Applies coalesced work to the targets: one `applyBatch` per (job, action) group — a job has one
 * target connection and one mapping, so one entity — with the groups of different jobs in
 * parallel. Keeps the guarantees of the single-message path: an upsert older than a recorded
 * delete of its record is outdated (checked after the write, which then deletes the record
 * again), a delete is recorded before it is applied, response messages are built from the
 * returned fields, applied hashes are recorded.
 */
export async function applyGroups(work: readonly Work[], deps: ProcessingDependencies): Promise<Verdict[]> {
  const groups = new Map<string, Work[]>();
  for (const w of work) {
    const key = `${w.job.name}\u0000${w.message.action}`;
    const group = groups.get(key);
    if (group) group.push(w);
    else groups.set(key, [w]);
  }
  const verdicts = await Promise.all([...groups.values()].map((group) => applyGroup(group, deps)));
  return verdicts.flat();
}

async function applyGroup(group: readonly Work[], deps: ProcessingDependencies): Promise<Verdict[]> {
  const { job, mapping } = group[0];
  const action = group[0].message.action;
  const verdicts: Verdict[] = [];
  try {
    if (action === JobActionType.Delete && deps.deletions) {
      // Recorded first: an upsert checked after this point sees it, one checked before is undone by its own re-check.
      await deps.deletions.recordDeletedMany(job, mapping, group.map((w) => w.message));
    }
  } catch (err) {
    return group.map((w) => failed(w, err, true));
  }
  const health = deps.targetHealth;
  if (!health) return applyAdmitted(group, deps);
  let admission = await admit(health, job.target, deps);
  if (admission.kind === 'all') return applyAdmitted(group, deps);
  const pending = [...group];
  if (admission.kind === 'probe') {
    // The probe is the message with the fewest attempts: a poison message must not be the one that keeps probing.
    pending.sort((a, b) => a.attempt - b.attempt);
    const probe = health.probeInFlight(job.target);
    try {
      verdicts.push(...(await applyAdmitted(pending.splice(0, 1), deps)));
    } finally {
      health.probeEnded(job.target, probe);
    }
    // The probe ended the outage: the rest of its group goes now, not a probe interval later.
    admission = health.admit(job.target, deps.clock.now());
    if (admission.kind === 'all') return [...verdicts, ...(await applyAdmitted(pending, deps))];
  }
  // In outage: the rest wait, no attempt counted.
  const until = health.deferUntil(job.target, deps.clock.now());
  deps.recoveries?.note(job.target, until);
  for (const w of pending) verdicts.push({ kind: 'deferred', work: w, until, connection: job.target });
  return verdicts;
}

/**
 * The outage mode's admission for a group of `connection`; a group that finds a probe in flight
 * waits for its result (at most `probeWaitMs`), so that the end of an outage applies it at once.
 */
async function admit(health: TargetHealth, connection: string, deps: ProcessingDependencies): Promise<Admission> {
  const admission = health.admit(connection, deps.clock.now());
  const probe = admission.kind === 'none' ? health.probeInFlight(connection) : undefined;
  if (!probe) return admission;
  const timeout = new AbortController();
  await Promise.race([probe, deps.clock.sleep(health.probeWaitMs, timeout.signal).catch(() => undefined)]);
  timeout.abort();
  return health.admit(connection, deps.clock.now());
}

/** One `applyBatch` of admitted work and what follows it; a failure of the whole call is every message's. */
async function applyAdmitted(group: readonly Work[], deps: ProcessingDependencies): Promise<Verdict[]> {
  if (group.length === 0) return [];
  const { job, mapping } = group[0];
  const action = group[0].message.action;
  const verdicts: Verdict[] = [];
  try {
    const guarded = action === JobActionType.NewUpdate && job.skipOutdatedMessages && deps.deletions;
    const target = await deps.targets.target(job.target);
    const type = parseWatermarkType(job.watermark.type);
    const outcomes = await target.applyBatch({
      job,
      mapping,
      action,
      messages: group.map((w) => w.message),
      responseMapping: job.responseJob ? mapping.responseMapping : undefined,
      versionCheck: job.skipOutdatedMessages && action === JobActionType.NewUpdate && type ? { type } : undefined,
    });
    // Every item refused with a configuration error (a connector that reports per item, as a `$batch`): the group failed as a whole.
    const groupError = wholeGroupError(outcomes);
    if (groupError !== undefined) throw groupError;
    noteHealth(deps, job.target, undefined);
    if (outcomes.length !== group.length) throw new Error(`target "${job.target}" answered ${outcomes.length} outcomes for ${group.length} messages`);
    const applied: Array<{ work: Work; outcome: Extract<ItemOutcome, { status: 'applied' }> }> = [];
    const recovering = await recoveringUntil(job.target, outcomes, deps);
    group.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome.status === 'applied') applied.push({ work: w, outcome });
      else if (outcome.status === 'outdated') verdicts.push({ kind: 'ignored', work: w, reason: `the target holds a newer version (${outcome.targetVersion})` });
      else if (recovering && errorKind(outcome.error) === 'transitive') {
        // Its parent may be among the messages deferred during the outage: wait for them, no attempt counted.
        verdicts.push({ kind: 'deferred', work: w, until: recovering, connection: job.target, cause: outcome.error });
      } else verdicts.push(failed(w, outcome.error));
    });
    let kept = applied;
    if (guarded && applied.length > 0) kept = await undoDeleted(applied, deps, verdicts);
    for (const { work: w, outcome } of kept) verdicts.push(await afterApplied(w, outcome, deps));
  } catch (err) {
    // The whole group failed before or at its target: every message not decided yet shares the error.
    if (!isItemError(err)) noteHealth(deps, job.target, err, group.map((w) => `${w.job.name}\u0000${w.message.sourceKey}`));
    const decided = new Set(verdicts.map((v) => (v.kind === 'failed' ? v.index : v.work.index)));
    // A configuration error paused the target (see TargetHealth.failed): its messages wait for the fix, no attempt counted.
    const until = errorKind(err) === 'config' ? waitForFix(deps, job.target) : undefined;
    for (const w of group) {
      if (decided.has(w.index)) continue;
      verdicts.push(until ? { kind: 'deferred', work: w, until, connection: job.target } : failed(w, err, true));
    }
  }
  return verdicts;
}

/**
 * The error of a group whose every item failed with a configuration error (a missing entity set
 * or property answered per operation of a `$batch`): nothing was applied and nothing will be
 * until the target or the mapping is fixed. Undefined when any item fared otherwise.
 */
function wholeGroupError(outcomes: readonly ItemOutcome[]): unknown {
  if (outcomes.length === 0) return undefined;
  for (const o of outcomes) if (o.status !== 'failed' || errorKind(o.error) !== 'config') return undefined;
  return (outcomes[0] as { error: unknown }).error;
}

/** When a message of `connection`, in outage for a configuration error, comes back; undefined without an outage mode. */
function waitForFix(deps: ProcessingDependencies, connection: string): Date | undefined {
  const health = deps.targetHealth;
  if (!health?.inOutage(connection)) return undefined;
  const until = health.deferUntil(connection, deps.clock.now());
  deps.recoveries?.note(connection, until);
  return until;
}

/**
 * Until when messages deferred during an outage of `connection` are still to come back, by this
 * instance or (read only when some item misses its parent) any other.
 */
async function recoveringUntil(connection: string, outcomes: readonly ItemOutcome[], deps: ProcessingDependencies): Promise<Date | undefined> {
  const health = deps.targetHealth;
  if (!health) return undefined;
  const now = deps.clock.now();
  const own = health.recoveringUntil(connection, now);
  if (own || !deps.recoveries) return own;
  const missesParent = outcomes.some((o) => o.status === 'failed' && errorKind(o.error) === 'transitive');
  return missesParent ? deps.recoveries.until(connection, now) : undefined;
}

/**
 * An upsert older than a recorded delete of its record (applied before it, or while it was being
 * written, on another queue or instance): the delete wins, so the record is deleted again and the
 * upsert counts as outdated. Checked once, after the write — a check before it as well would see
 * nothing the check after misses, and each costs table reads per record (on Azurite, its CPU is
 * what bounds a realistic load). The record may exist for the moment between write and delete.
 */
async function undoDeleted<T extends { work: Work }>(applied: T[], deps: ProcessingDependencies, verdicts: Verdict[]): Promise<T[]> {
  const deleted = await deps.deletions!.deletedAfterMany(applied[0].work.job, applied[0].work.mapping, applied.map((a) => a.work.message));
  const undone = applied.filter((_, i) => deleted[i]);
  if (undone.length === 0) return applied;
  const { job, mapping } = undone[0].work;
  deps.log.info(`job "${job.name}": ${undone.length} record(s) were deleted by a newer change while they were upserted: deleting them again`);
  const target = await deps.targets.target(job.target);
  const outcomes = await target.applyBatch({ job, mapping, action: JobActionType.Delete, messages: undone.map((a) => a.work.message) });
  undone.forEach((a, i) => {
    const outcome = outcomes[i];
    verdicts.push(outcome?.status === 'failed' ? failed(a.work, outcome.error) : { kind: 'ignored', work: a.work, reason: 'a newer delete of this record was applied meanwhile' });
  });
  return applied.filter((_, i) => !deleted[i]);
}

/** The response message (response jobs) and the applied-hash bookkeeping of one applied message. */
async function afterApplied(w: Work, outcome: Extract<ItemOutcome, { status: 'applied' }>, deps: ProcessingDependencies): Promise<Verdict> {
  try {
    let response: QueueMessage | undefined;
    if (w.message.action === JobActionType.NewUpdate) {
      response = responseFor(w, outcome.returned, deps);
      await deps.appliedHashes?.recordApplied(w.job, w.message);
    } else if (w.message.action === JobActionType.Delete) {
      await deps.appliedHashes?.forget(w.job, w.message);
    }
    return { kind: 'applied', work: w, response };
  } catch (err) {
    return failed(w, err);
  }
}

function responseFor(w: Work, returned: Record<string, JsonValue> | undefined, deps: ProcessingDependencies): QueueMessage | undefined {
  const { job, mapping, message } = w;
  if (!job.responseJob || !returned || !mapping.responseMapping?.length) return undefined;
  const responseJob = deps.config.getJob(job.responseJob);
  const responseMapping = responseJob && deps.config.getMapping(responseJob.mapping);
  if (!responseJob || !responseMapping) throw new PermanentError(`job "${job.name}": unknown response job "${job.responseJob}"`);
  return buildResponseMessage({ original: message, originalMapping: mapping, responseJob, responseJobMapping: responseMapping, returned, now: deps.clock.now() });
}

/** Tells the outage mode how a group fared at its target, and says so when the connection's state changed. */
function noteHealth(deps: ProcessingDependencies, connection: string, error: unknown, messageIds: readonly string[] = []): void {
  const health = deps.targetHealth;
  if (!health) return;
  const now = deps.clock.now();
  if (error === undefined) {
    if (health.succeeded(connection) === 'outageEnded') {
      deps.log.info(`target connection "${connection}" answers again: its messages are applied again`, { event: 'TargetOutageEnded', connection });
      deps.metrics.track(METRIC_NAMES.targetOutage, 0, { connection });
    }
    return;
  }
  const text = safeErrorText(errorMessage(error));
  const config = errorKind(error) === 'config';
  if (health.failed(connection, now, text, messageIds, config ? 'config' : 'transient') !== 'outageStarted') {
    // A failed probe: tracked again, so that an alert over a window of points (the target-outage
    // alert rule) still sees an outage that began before its window.
    if (health.inOutage(connection)) deps.metrics.track(METRIC_NAMES.targetOutage, 1, { connection });
    return;
  }
  const probes = `one probe every ${Math.round(health.probeEveryMs / 1000)} s`;
  deps.log.error(
    config
      ? `target connection "${connection}" cannot take its messages (${text}): they wait, no attempt counted, ${probes} until it is fixed`
      : `target connection "${connection}" failed ${health.threshold} groups in a row (${text}): its messages wait, ${probes}`,
    { event: 'TargetOutageStarted', connection },
  );
  deps.metrics.track(METRIC_NAMES.targetOutage, 1, { connection });
}
