import type { ApplicationProperties, BusMessage, DeadLetterOptions, OutgoingMessage } from '../../bus/message-bus';
import { ERROR_PROPERTY, MESSAGE_TIME_TO_LIVE_MS, sideQueueCopyId, toOutgoingMessage } from '../../bus/message-properties';
import { errorKind, errorMessage } from '../../platform/errors';
import type { ProcessOutcome } from '../../telemetry/metrics';
import type { ProcessingDependencies } from '../processing-dependencies';
import type { ProcessResult } from '../process-result';
import { DEFAULT_MAX_ATTEMPTS, retryAt } from './attempts';
import { dispositionFor } from './disposition';
import { indexOf, type Verdict } from './verdict';

/** Reason of a message dead-lettered because its attempts are used up (as the broker names it). */
const MAX_ATTEMPTS_REASON = 'MaxDeliveryCountExceeded';

/** How one message is settled: copies sent first, then the original completed or dead-lettered. */
export interface SettlePlan {
  readonly index: number;
  readonly result: ProcessResult;
  /** Sent before the original is settled (a crash in between duplicates, never loses). */
  readonly sends: ReadonlyArray<{ queue: string; message: OutgoingMessage }>;
  readonly settle: { kind: 'complete' } | { kind: 'deadLetter'; options: DeadLetterOptions };
  /** Used instead of `settle` when a send failed: the broker delivers the original again. */
  readonly fallback: ApplicationProperties;
}

/**
 * Turns a verdict into its settlement (docs/architecture.md, Processing): applied and superseded messages are
 * completed (a response message sent first); outdated ones copied to `sbqignored`; failures go by
 * {@link dispositionFor}: a retry is a copy in the same queue scheduled for the next attempt
 * (`retryAt`), a park a copy in the transitive queue, otherwise dead-letter.
 */
export function settlePlan(verdict: Verdict, queue: string, deps: ProcessingDependencies): SettlePlan {
  const now = deps.clock.now();
  const index = indexOf(verdict);
  switch (verdict.kind) {
    case 'applied': {
      const { work, response } = verdict;
      const responseJob = response && deps.config.getJob(response.jobName);
      const sends = response && responseJob ? [{ queue: deps.queues.work[responseJob.priority], message: toOutgoingMessage(response) }] : [];
      return { index, result: { outcome: 'Success', disposition: 'completed', jobName: work.job.name }, sends, settle: { kind: 'complete' }, fallback: {} };
    }
    case 'superseded':
      return { index, result: { outcome: 'Superseded', disposition: 'superseded', jobName: verdict.work.job.name }, sends: [], settle: { kind: 'complete' }, fallback: {} };
    case 'ignored': {
      const received = verdict.work.item.message;
      const copy = copyOf(received, queue, { [ERROR_PROPERTY.ignoredReason]: verdict.reason }, now);
      return { index, result: { outcome: 'Ignored', disposition: 'ignored', jobName: verdict.work.job.name }, sends: [{ queue: deps.queues.ignored, message: copy }], settle: { kind: 'complete' }, fallback: {} };
    }
    case 'deferred': {
      const { work, until, connection, cause } = verdict;
      // The same attempt again: waiting out an outage uses up none of the message's attempts.
      const copy = copyOf(work.item.message, queue, { [ERROR_PROPERTY.attempt]: work.attempt }, now, until);
      const error =
        cause === undefined
          ? `target connection "${connection}" is in outage`
          : `target connection "${connection}" recovers from an outage; waits for the messages deferred in it (${deps.errorProperties(cause, now)[ERROR_PROPERTY.message] ?? errorMessage(cause)})`;
      return {
        index,
        result: { outcome: 'Deferred', disposition: 'deferred', jobName: work.job.name, error, retryAt: until },
        sends: [{ queue, message: copy }],
        settle: { kind: 'complete' },
        fallback: {},
      };
    }
    case 'failed':
      return failurePlan(verdict, queue, deps, now);
  }
}

function failurePlan(verdict: Extract<Verdict, { kind: 'failed' }>, queue: string, deps: ProcessingDependencies, now: Date): SettlePlan {
  const received = verdict.item.message;
  const job = verdict.work?.job;
  const attempt = verdict.work?.attempt ?? 1;
  const props = deps.errorProperties(verdict.error, now);
  const text = String(props[ERROR_PROPERTY.message] ?? errorMessage(verdict.error));
  const kind = errorKind(verdict.error);
  const outcome: ProcessOutcome = kind === 'transitive' && job ? 'Transitive' : 'Failed';
  const base = { index: verdict.index, fallback: props };
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  switch (dispositionFor(kind, attempt, job, maxAttempts)) {
    case 'retry': {
      const retryAfterMs = (verdict.error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
      const at = retryAt(attempt, now, typeof retryAfterMs === 'number' ? retryAfterMs : undefined);
      const copy = copyOf(received, queue, { ...props, [ERROR_PROPERTY.attempt]: attempt + 1 }, now, at);
      return { ...base, result: { outcome, disposition: 'retried', jobName: job?.name, error: text, retryAt: at }, sends: [{ queue, message: copy }], settle: { kind: 'complete' } };
    }
    case 'park':
      return {
        ...base,
        result: { outcome, disposition: 'transitive', jobName: job?.name, error: text },
        sends: [{ queue: deps.queues.transitive[job!.priority], message: copyOf(received, queue, props, now) }],
        settle: { kind: 'complete' },
      };
    case 'exhausted':
      return {
        ...base,
        result: { outcome: 'Failed', disposition: 'deadLettered', jobName: job?.name, error: text },
        sends: [],
        settle: { kind: 'deadLetter', options: { reason: MAX_ATTEMPTS_REASON, description: `failed ${attempt} attempts; the last: ${text}`, propertiesToModify: props } },
      };
    case 'deadLetter':
      return {
        ...base,
        result: { outcome: 'Failed', disposition: 'deadLettered', jobName: job?.name, error: text },
        sends: [],
        settle: { kind: 'deadLetter', options: { reason: String(props[ERROR_PROPERTY.type]), description: text, propertiesToModify: props } },
      };
  }
}

/**
 * A copy of a received message for another queue or a later attempt: the same body and
 * properties (plus `extra`), the rest of its time to live, and an id derived from this delivery
 * (`sideQueueCopyId`), so that a crash between copy and settlement makes a duplicate the broker
 * drops, while the same change failing again later gets a new copy.
 */
function copyOf(received: BusMessage, queue: string, extra: ApplicationProperties, now: Date, scheduledEnqueueTime?: Date): OutgoingMessage {
  const left = received.expiresAt.getTime() - now.getTime();
  return {
    body: received.body,
    messageId: sideQueueCopyId(received, queue),
    subject: received.subject,
    correlationId: received.correlationId,
    contentType: received.contentType,
    applicationProperties: { ...received.applicationProperties, ...extra },
    timeToLiveMs: Number.isFinite(left) && left > 0 ? Math.min(left, MESSAGE_TIME_TO_LIVE_MS) : 1_000,
    ...(scheduledEnqueueTime ? { scheduledEnqueueTime } : {}),
  };
}
