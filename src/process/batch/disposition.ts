import type { ErrorKind } from '../../platform/errors';
import type { Job } from '../../model/job';

/** Where a failed message goes. */
export type FailureDisposition =
  /** A copy scheduled for the next attempt; the original is completed. */
  | 'retry'
  /** A copy in the priority's transitive (parked) queue; the original is completed. */
  | 'park'
  /** Dead-lettered at once: it can never succeed as it is. */
  | 'deadLetter'
  /** Dead-lettered with `MaxDeliveryCountExceeded`: its attempts are used up. */
  | 'exhausted';

/**
 * The spec's failure paths as one pure decision (docs/architecture.md, Processing): a missing dependency parks,
 * after the job's opt-in `transitiveRetries`; what can never succeed is dead-lettered at once; a
 * configuration error (a rejected credential, a missing table) and anything transient is retried
 * until `maxAttempts`, because fixing the setting or waiting makes it pass.
 * @param job undefined when the message names no known job (then nothing can be retried into it).
 */
export function dispositionFor(kind: ErrorKind, attempt: number, job: Pick<Job, 'transitiveRetries'> | undefined, maxAttempts: number): FailureDisposition {
  if (kind === 'permanent' || !job) return 'deadLetter';
  if (kind === 'transitive') return attempt <= (job.transitiveRetries ?? 0) ? 'retry' : 'park';
  return attempt >= maxAttempts ? 'exhausted' : 'retry';
}
