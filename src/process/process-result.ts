import type { ProcessOutcome } from '../telemetry/metrics';

/** What happened to one message. */
export interface ProcessResult {
  /** `Failed` covers retried and dead-lettered messages; `Transitive` parked ones and retries of a missing dependency. */
  outcome: ProcessOutcome;
  /**
   * Where the message ended: completed (applied), superseded by a newer change of its record in
   * the same batch, a side queue, a scheduled retry copy, dead-lettered — or abandoned, when a
   * copy of it could not be sent and the broker is to deliver it again.
   */
  disposition: 'completed' | 'superseded' | 'deferred' | 'ignored' | 'transitive' | 'retried' | 'abandoned' | 'deadLettered';
  jobName?: string;
  error?: string;
  /** For `retried` and `deferred`: when the copy becomes visible. */
  retryAt?: Date;
  /** Set when the message could not be settled (lock lost, bus down): the broker delivers it again. */
  settleError?: string;
}
