import type { ApplicationProperties, BusMessage } from '../bus/message-bus';
import { sideQueueCopyId } from '../bus/message-properties';
import { errorKind, errorMessage, PermanentError } from '../model/errors';
import { JobActionType, type Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { deserializeQueueMessage, type QueueMessage } from '../model/queue-message';
import { messageLogContext, receivedLogContext } from '../telemetry/log-context';
import { METRIC_NAMES, type ProcessOutcome } from '../telemetry/metrics';
import { deliveryBackoffMs } from './backoff';
import { startLockRenewal } from './lock-renewal';
import type { MessageSettler } from './message-settler';
import { buildResponseMessage } from './response-message';
import { isOutdated } from './outdated';
import { ERROR_PROPERTY } from '../bus/message-properties';
import type { ProcessingDependencies } from './processing-dependencies';
import type { BatchSettlement, ReceivedItem } from './received-item';

/** What happened to one message; `Failed` covers both abandon and dead-letter. */
export interface ProcessResult {
  outcome: ProcessOutcome;
  /** Where the message ended: completed, a side queue, abandoned for retry, or dead-lettered. */
  disposition: 'completed' | 'ignored' | 'transitive' | 'abandoned' | 'deadLettered';
  jobName?: string;
  error?: string;
  /** Set when the message could not be settled (lock lost, bus down): the broker delivers it again. */
  settleError?: string;
}

/** Longest `Retry-After` waited for within one delivery; longer ones abandon (backoff on redelivery). */
export const MAX_RETRY_AFTER_MS = 120_000;
/** Longest wait for a `RetryNotBefore` on redelivery (the Functions timeout is 30 min). */
export const MAX_REDELIVERY_WAIT_MS = 20 * 60_000;
/** Attempts within one delivery when the target keeps throttling. */
export const MAX_RETRY_AFTER_ATTEMPTS = 3;

/** Default lock renewal interval: half the Service Bus default lock duration (60 s). */
export const DEFAULT_LOCK_RENEWAL_MS = 30_000;

/**
 * Applies one queue message to its target and settles it (ARCHITECTURE §5). Shared by the
 * Functions' Service Bus triggers and the local host's processors.
 */
export class ProcessQueueMessageService {
  constructor(private readonly deps: ProcessingDependencies) {}

  /**
   * @param queue the queue the message came from (metric dimension and log context); default:
   * the received message's own `queue` when it has one.
   */
  async execute(received: BusMessage, settler: MessageSettler, queue?: string): Promise<ProcessResult> {
    const { clock, log } = this.deps;
    const source = queue ?? (received as { queue?: string }).queue ?? 'unknown';
    const started = clock.now().getTime();
    const stopRenewal = startLockRenewal(settler, clock, this.deps.lockRenewalMs ?? DEFAULT_LOCK_RENEWAL_MS, (err) =>
      log.warn(`lock renewal failed for message ${received.messageId}: ${errorMessage(err)}`, receivedLogContext(received, source)),
    );
    let result: ProcessResult;
    try {
      result = await this.process(received, settler, source);
    } finally {
      stopRenewal();
    }
    const job = result.jobName ?? 'unknown';
    this.deps.metrics.track(METRIC_NAMES.messagesProcessed, 1, { job, queue: source, outcome: result.outcome });
    this.deps.metrics.track(METRIC_NAMES.processingDurationMs, clock.now().getTime() - started, { job, queue: source, outcome: result.outcome });
    return result;
  }

  /**
   * Processes received messages as one batch and settles every one of them; resolves with one
   * result per item, in order. Never rejects for a message's failure: a message that could not be
   * settled has `settleError` (a Functions trigger throws when none could be settled, so that the
   * host abandons them).
   * @param queue the work queue they came from (metric dimension, side-queue copy ids).
   */
  async executeBatch(items: readonly ReceivedItem[], queue: string, _settlement: BatchSettlement = {}): Promise<ProcessResult[]> {
    return Promise.all(
      items.map((item) =>
        this.execute(item.message, item.settler, queue).catch((err): ProcessResult => ({ outcome: 'Failed', disposition: 'abandoned', settleError: errorMessage(err) })),
      ),
    );
  }

  private async process(received: BusMessage, settler: MessageSettler, queue: string): Promise<ProcessResult> {
    const { config } = this.deps;
    let message: QueueMessage;
    let job: Job;
    let mapping: Mapping;
    try {
      await config.ensureInitialized();
      message = deserializeQueueMessage(received.body);
      const found = config.getJob(message.jobName);
      if (!found) throw new PermanentError(`unknown job "${message.jobName}"`);
      job = found;
      const foundMapping = config.getMapping(job.mapping);
      if (!foundMapping) throw new PermanentError(`job "${job.name}": unknown mapping "${job.mapping}"`);
      mapping = foundMapping;
    } catch (err) {
      return this.fail(received, settler, queue, err, undefined);
    }

    // A first delivery that carries no RetryNotBefore never waits: no clock read for it.
    if (received.deliveryCount > 1 || received.applicationProperties[ERROR_PROPERTY.retryNotBefore] !== undefined) {
      const wait = redeliveryWaitMs(received, this.deps.clock.now());
      if (wait > 0) await this.deps.clock.sleep(wait);
    }

    let ignored: boolean;
    try {
      ignored = await this.honouringRetryAfter(async () => {
        const target = await this.deps.targets.target(job.target);
        if (job.skipOutdatedMessages && ((await isOutdated(target, message, mapping, job)) || (await this.deletedAfter(job, mapping, message)))) {
          await this.deps.sender.sendMessage(this.deps.queues.ignored, message, copyProperties(received), sideQueueCopyId(received, queue));
          return true;
        }
        await this.apply(target, message, job, mapping);
        return false;
      });
    } catch (err) {
      return this.fail(received, settler, queue, err, job, message);
    }
    // Outside the try: a failed complete (lock lost) must not abandon or park the message — the
    // broker delivers it again and the idempotent apply absorbs the repeat.
    await settler.complete();
    return ignored
      ? { outcome: 'Ignored', disposition: 'ignored', jobName: job.name }
      : { outcome: 'Success', disposition: 'completed', jobName: job.name };
  }

  /**
   * Runs `work`; when it fails with a transient error that says when to come back (`Retry-After`
   * of a 429/503), waits that long — the lock is renewed meanwhile — and tries again, so that
   * throttling is a delay, not a failed delivery. Longer waits, or a third throttle, fail as usual.
   */
  private async honouringRetryAfter<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        const waitMs = (err as { retryAfterMs?: unknown }).retryAfterMs;
        const honour = errorKind(err) === 'transient' && typeof waitMs === 'number' && waitMs >= 0 && waitMs <= MAX_RETRY_AFTER_MS;
        if (!honour || attempt >= MAX_RETRY_AFTER_ATTEMPTS) throw err;
        this.deps.log.info(`target asked to retry after ${waitMs} ms (attempt ${attempt})`);
        await this.deps.clock.sleep(waitMs);
      }
    }
  }

  private async apply(
    target: Awaited<ReturnType<ProcessingDependencies['targets']['target']>>,
    message: QueueMessage,
    job: Job,
    mapping: Mapping,
  ): Promise<void> {
    switch (message.action) {
      case JobActionType.NewUpdate: {
        const result = await target.upsert(message, mapping, { responseMapping: mapping.responseMapping, job });
        const deleted = this.deletedAfter(job, mapping, message);
        if (deleted !== false && (await deleted)) {
          // A newer delete of this record was processed while this upsert was: the delete wins.
          this.deps.log.info(`job "${job.name}": ${message.sourceKey} was deleted by a newer change while it was upserted: deleting it again`);
          await target.delete(message, mapping);
          return;
        }
        if (job.responseJob) await this.sendResponse(message, job, mapping, result.returned);
        await this.deps.appliedHashes?.recordApplied(job, message);
        return;
      }
      case JobActionType.Delete:
        // Recorded first: an upsert checked after this point sees it, one checked before is undone by its own re-check.
        await this.deps.deletions?.recordDeleted(job, mapping, message);
        await target.delete(message, mapping);
        await this.deps.appliedHashes?.forget(job, message);
        return;
      case JobActionType.InvokeAction:
        await target.invokeAction(message, job);
        return;
    }
  }

  /** Skip-outdated upserts only: whether a newer delete of the record was recorded; plain `false` (nothing to await) when none can be. */
  private deletedAfter(job: Job, mapping: Mapping, message: QueueMessage): false | Promise<boolean> {
    if (!job.skipOutdatedMessages || message.action !== JobActionType.NewUpdate || !this.deps.deletions) return false;
    return this.deps.deletions.deletedAfter(job, mapping, message);
  }

  private async sendResponse(message: QueueMessage, job: Job, mapping: Mapping, returned: QueueMessage['fields'] | undefined) {
    if (!job.responseJob || !returned || !mapping.responseMapping?.length) return;
    const responseJob = this.deps.config.getJob(job.responseJob);
    const responseMapping = responseJob && this.deps.config.getMapping(responseJob.mapping);
    if (!responseJob || !responseMapping) throw new PermanentError(`job "${job.name}": unknown response job "${job.responseJob}"`);
    const response = buildResponseMessage({
      original: message,
      originalMapping: mapping,
      responseJob,
      responseJobMapping: responseMapping,
      returned,
      now: this.deps.clock.now(),
    });
    if (response) await this.deps.sender.sendMessage(this.deps.queues.work[responseJob.priority], response);
  }

  /** Settles a failure by its kind: transitive → park, permanent → dead-letter, else retry. */
  private async fail(
    received: BusMessage,
    settler: MessageSettler,
    queue: string,
    err: unknown,
    job?: Job,
    message?: QueueMessage,
  ): Promise<ProcessResult> {
    const props = this.deps.errorProperties(err, this.deps.clock.now());
    const text = String(props.ErrorMessage ?? errorMessage(err));
    const jobName = job?.name;
    const kind = errorKind(err);
    if (kind === 'transitive' && job && message && received.deliveryCount <= (job.transitiveRetries ?? 0)) {
      // Opt-in: give the dependency time to arrive (backoff on redelivery) before parking.
      await settler.abandon(props);
      return { outcome: 'Transitive', disposition: 'abandoned', jobName, error: text };
    }
    if (kind === 'transitive' && job && message) {
      // The copy is sent before the original is settled: a crash in between duplicates, never loses.
      await this.deps.sender.sendMessage(
        this.deps.queues.transitive[job.priority],
        message,
        { ...copyProperties(received), ...props },
        sideQueueCopyId(received, queue),
      );
      await settler.complete();
      return { outcome: 'Transitive', disposition: 'transitive', jobName, error: text };
    }
    // Config errors (e.g. a rejected credential) are retried: fixing the setting makes them pass.
    if (kind === 'permanent' || kind === 'transitive') {
      await settler.deadLetter({ reason: String(props.ErrorType), description: text, propertiesToModify: props });
      return { outcome: 'Failed', disposition: 'deadLettered', jobName, error: text };
    }
    const retryAfterMs = (err as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    if (typeof retryAfterMs === 'number' && retryAfterMs > 0) {
      // The redelivery waits for what the target asked, not only DeliveryCount² seconds.
      props[ERROR_PROPERTY.retryNotBefore] = new Date(this.deps.clock.now().getTime() + retryAfterMs).toISOString();
    }
    this.deps.log.warn(`message ${received.messageId} (job ${jobName ?? 'unknown'}) failed, delivery ${received.deliveryCount}: ${text}`, {
      ...receivedLogContext(received, queue),
      ...(message ? messageLogContext(message) : {}),
    });
    await settler.abandon(props);
    return { outcome: 'Failed', disposition: 'abandoned', jobName, error: text };
  }
}

/**
 * How long a delivery waits before it is applied: `DeliveryCount² · 1000 ms` on redelivery, or
 * until `RetryNotBefore` (a target's `Retry-After` from the previous delivery) when that is later —
 * at most {@link MAX_REDELIVERY_WAIT_MS}, within the function timeout.
 */
export function redeliveryWaitMs(received: Pick<BusMessage, 'deliveryCount' | 'applicationProperties'>, now: Date): number {
  const backoff = deliveryBackoffMs(received.deliveryCount);
  const notBefore = Date.parse(String(received.applicationProperties[ERROR_PROPERTY.retryNotBefore] ?? ''));
  const asked = Number.isFinite(notBefore) ? notBefore - now.getTime() : 0;
  return Math.min(Math.max(backoff, asked), Math.max(backoff, MAX_REDELIVERY_WAIT_MS));
}

/** Application properties carried over when a message is copied to a side queue. */
function copyProperties(received: BusMessage): ApplicationProperties {
  return { ...received.applicationProperties };
}
