import { MESSAGE_PROPERTY, safeErrorText } from '../bus/message-properties';
import { errorKind, errorMessage, errorTypeName } from '../platform/errors';
import { DEFAULT_MAX_ATTEMPTS } from './batch/attempts';
import { dispositionFor } from './batch/disposition';
import { messageLogContext, receivedLogContext } from '../telemetry/log-context';
import { METRIC_NAMES } from '../telemetry/metrics';
import { applyGroups } from './batch/apply-groups';
import { coalesce } from './batch/coalesce';
import { settleBatch } from './batch/settle-batch';
import { settlePlan } from './batch/settle-plan';
import { guardStale, recordApplied, watchSetAside } from './batch/stale-guard';
import { checkAtSource } from './batch/source-check';
import { triage } from './batch/triage';
import { syncPairs } from './batch/pair-sync';
import type { Verdict } from './batch/verdict';
import { startBatchLockRenewal } from './lock-renewal';
import type { MessageSettler } from './message-settler';
import type { BusMessage } from '../bus/message-bus';
import type { ProcessingDependencies } from './processing-dependencies';
import type { BatchSettlement, ReceivedItem } from './received-item';
import type { ProcessResult } from './process-result';

export type { ProcessResult } from './process-result';

/** Default lock renewal interval: half the Service Bus default lock duration (60 s). */
export const DEFAULT_LOCK_RENEWAL_MS = 30_000;

/**
 * Applies received messages to their targets and settles each (docs/architecture.md, Processing), a batch at a
 * time: triage (what can never be applied is dead-lettered before any target call), coalescing
 * per record (the newest change wins), the stale guard (a message that comes back older than
 * a change applied since is ignored), the source check (a redelivery whose record changed at
 * its source since is ignored), one `applyBatch` per job and action, then settlement —
 * copies first, then the originals. Failures never wait in a processing slot: a retry is a copy
 * scheduled for the next attempt. Shared by the Functions' Service Bus triggers and the local
 * host's processors.
 */
export class ProcessQueueMessageService {
  constructor(private readonly deps: ProcessingDependencies) {}

  /**
   * Processes one message (a batch of one).
   * @throws the settlement error when the message could not be settled (the broker delivers it again).
   */
  async execute(received: BusMessage, settler: MessageSettler, queue?: string): Promise<ProcessResult> {
    const source = queue ?? (received as { queue?: string }).queue ?? 'unknown';
    const [result] = await this.executeBatch([{ message: received, settler }], source);
    if (result.settleError !== undefined) throw new Error(`message ${received.messageId} not settled: ${result.settleError}`);
    return result;
  }

  /**
   * Processes received messages as one batch and settles every one of them; resolves with one
   * result per item, in order. Never rejects for a message's failure: a message that could not be
   * settled has `settleError` (a Functions trigger throws when none could be settled, so that the
   * host abandons them). Every message's lock is renewed while the batch is worked on.
   * @param queue the work queue they came from (metric dimension, copies' ids, retries).
   */
  async executeBatch(items: readonly ReceivedItem[], queue: string, settlement: BatchSettlement = {}): Promise<ProcessResult[]> {
    if (items.length === 0) return [];
    const { clock, log } = this.deps;
    const started = clock.now().getTime();
    const stopRenewal = startBatchLockRenewal(items, clock, this.deps.lockRenewalMs ?? DEFAULT_LOCK_RENEWAL_MS, (item, err) =>
      log.warn(`lock renewal failed for message ${item.message.messageId}: ${errorMessage(err)}`, receivedLogContext(item.message, queue)),
    );
    let results: ProcessResult[];
    try {
      const verdicts = await this.decide(items);
      const plans = verdicts.map((v) => settlePlan(v, queue, this.deps));
      plans.sort((a, b) => a.index - b.index);
      this.logFailures(verdicts, queue);
      results = await settleBatch(plans, items, this.deps, settlement);
    } finally {
      stopRenewal();
    }
    const elapsed = clock.now().getTime() - started;
    for (const result of results) {
      const job = result.jobName ?? 'unknown';
      this.deps.metrics.track(METRIC_NAMES.messagesProcessed, 1, { job, queue, outcome: result.outcome });
      this.deps.metrics.track(METRIC_NAMES.processingDurationMs, elapsed, { job, queue, outcome: result.outcome });
    }
    return results;
  }

  /** One verdict per item, in any order. */
  private async decide(items: readonly ReceivedItem[]): Promise<Verdict[]> {
    try {
      await this.deps.config.ensureInitialized();
    } catch (error) {
      // Without configuration nothing can be looked up: every message is retried as it is.
      return items.map((item, index): Verdict => ({ kind: 'failed', index, item, error }));
    }
    const { work, rejected } = triage(items, this.deps.config);
    const verdicts: Verdict[] = rejected.map((r) => ({ kind: 'failed', index: r.index, item: r.item, error: r.error, message: r.message }));
    const { winners, superseded } = coalesce(work);
    for (const w of superseded) verdicts.push({ kind: 'superseded', work: w });
    const { kept: oneWay, verdicts: paired } = await syncPairs(winners, this.deps);
    verdicts.push(...paired);
    const { kept: fresh, verdicts: stale } = await guardStale(oneWay, this.deps);
    verdicts.push(...stale);
    const { kept, verdicts: atSource } = await checkAtSource(fresh, this.deps);
    verdicts.push(...atSource);
    const applied = await applyGroups(kept, this.deps);
    recordApplied(applied, this.deps);
    verdicts.push(...applied);
    await watchSetAside(verdicts, this.deps);
    return verdicts;
  }

  /**
   * One line per message set aside, also inside a group, with what finds it again (the body may
   * be unreadable): dead-lettered at once (permanent, malformed body, unknown job) is an error;
   * parked (a missing dependency) a warning that says how it comes back, as nothing retries it by itself.
   */
  private logSetAside(v: Extract<Verdict, { kind: 'failed' }>, queue: string, disposition: SetAside, context: Record<string, unknown>): void {
    const props = v.item.message.applicationProperties ?? {};
    const job = v.work?.job.name ?? v.message?.jobName ?? String(props[MESSAGE_PROPERTY.jobName] ?? 'unknown');
    const sourceKey = v.message?.sourceKey ?? String(props[MESSAGE_PROPERTY.sourceKey] ?? 'unknown');
    const what = `message ${v.item.message.messageId} (job ${job}, source key ${sourceKey})`;
    const reason = `${errorTypeName(v.error)}: ${safeErrorText(errorMessage(v.error))}`;
    if (disposition === 'deadLetter' || !v.work) {
      this.deps.log.error(`${what} dead-lettered on ${queue}: ${reason}`, { ...context, job, sourceKey });
      return;
    }
    const parkedIn = this.deps.queues.transitive[v.work.job.priority];
    this.deps.log.warn(
      `${what} parked in ${parkedIn} from ${queue} after attempt ${v.work.attempt}: ${reason}; ` +
        `no retry is scheduled: it runs again when ${parkedIn} is requeued (the scheduled requeue, or dead-letter-mover --queue ${parkedIn} --apply)`,
      { ...context, job, sourceKey, parkedIn },
    );
  }

  /** One line per failed message (per group when the whole group failed with one error). */
  private logFailures(verdicts: readonly Verdict[], queue: string): void {
    const groupsLogged = new Set<string>();
    const groupSizes = new Map<string, number>();
    for (const v of verdicts) if (v.kind === 'failed' && v.group) groupSizes.set(groupKey(v), (groupSizes.get(groupKey(v)) ?? 0) + 1);
    const maxAttempts = this.deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const retried = new Map<string, Array<Extract<Verdict, { kind: 'failed' }>>>();
    for (const v of verdicts) {
      if (v.kind !== 'failed') continue;
      const text = errorMessage(v.error);
      const context = { ...receivedLogContext(v.item.message, queue), ...(v.message ? messageLogContext(v.message) : {}) };
      const disposition = dispositionFor(errorKind(v.error), v.work?.attempt ?? 1, v.work?.job, maxAttempts);
      if (disposition === 'deadLetter' || disposition === 'park') {
        this.logSetAside(v, queue, disposition, context);
        continue;
      }
      if (v.group) {
        const key = groupKey(v);
        if (groupsLogged.has(key)) continue;
        groupsLogged.add(key);
        this.deps.log.warn(`${groupSizes.get(key)} message(s) of job ${v.work?.job.name ?? 'unknown'} failed together on ${queue}: ${text}`, context);
        continue;
      }
      const key = `${v.work?.job.name ?? v.message?.jobName ?? 'unknown'}\u0000${v.work?.attempt ?? 1}\u0000${text}`;
      const same = retried.get(key);
      if (same) same.push(v);
      else retried.set(key, [v]);
    }
    // One line per job, attempt and error: a batch of contacts racing their accounts is one
    // line, not one a message (the console write cost more than the retry).
    for (const same of retried.values()) {
      const v = same[0];
      const job = v.work?.job.name ?? v.message?.jobName ?? 'unknown';
      const context = { ...receivedLogContext(v.item.message, queue), ...(v.message ? messageLogContext(v.message) : {}) };
      const text = errorMessage(v.error);
      if (same.length === 1) {
        this.deps.log.warn(`message ${v.item.message.messageId} (job ${job}) failed, attempt ${v.work?.attempt ?? 1}: ${text}`, context);
        continue;
      }
      const keys = same.slice(0, 5).map((o) => o.message?.sourceKey ?? o.item.message.messageId);
      this.deps.log.warn(
        `${same.length} messages (job ${job}) failed, attempt ${v.work?.attempt ?? 1}: ${text} (source keys ${keys.join(', ')}${same.length > 5 ? ', …' : ''})`,
        { ...context, messages: same.length },
      );
    }
  }
}

/** A failed verdict that leaves its work queue: dead-lettered at once, or parked in a transitive queue. */
type SetAside = 'deadLetter' | 'park';

function groupKey(v: Extract<Verdict, { kind: 'failed' }>): string {
  return `${v.work?.job.name ?? ''}\u0000${v.message?.action ?? ''}\u0000${errorMessage(v.error)}`;
}
