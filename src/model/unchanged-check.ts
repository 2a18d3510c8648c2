import type { Job } from './job';
import type { QueueMessage } from './queue-message';

/**
 * Tells whether a change's mapped fields equal what was last applied (`skipUnchanged` jobs).
 * Detection asks it; processing keeps the hashes it answers from (`AppliedHashStore`).
 */
export interface UnchangedCheck {
  /** The subset of `messages` whose fields hash to what was last applied for their record. */
  unchanged(job: Job, messages: QueueMessage[]): Promise<Set<QueueMessage>>;
}
