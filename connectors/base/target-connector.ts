import type { Job } from '../../src/model/job';
import type { Mapping, ResponseFieldMapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { BatchTarget } from './target-batch';

export interface UpsertContext {
  /** When given, the target returns these `from` fields of the written record (e.g. a generated number). */
  responseMapping?: ResponseFieldMapping[];
  job?: Job;
}

export interface UpsertResult {
  /** The written record's `responseMapping[].from` fields; undefined when none were asked for. */
  returned?: Record<string, JsonValue>;
}

/**
 * Applies messages to a target system. Every method throws the error taxonomy of
 * `src/platform/errors.ts` (classified at the adapter boundary): `TransitiveError` when a dependency
 * is missing, `PermanentError` when the message can never be applied, `TransientError` otherwise.
 */
export interface TargetConnector extends BatchTarget {
  /** Inserts or updates the record identified by `message.targetKey` with `message.fields`. */
  upsert(message: QueueMessage, mapping: Mapping, context?: UpsertContext): Promise<UpsertResult>;
  /** Deletes the record identified by `message.targetKey`; deleting a missing record succeeds. */
  delete(message: QueueMessage, mapping: Mapping): Promise<void>;
  /** Runs the job's target action (`job.actionName`) with the message's parameters. */
  invokeAction(message: QueueMessage, job: Job): Promise<void>;
  /**
   * The target record's change tracker (for `skipOutdatedMessages`), as a string the job's
   * watermark type can canonicalize; null when the record does not exist.
   */
  getTargetVersion(message: QueueMessage, mapping: Mapping): Promise<string | null>;
  close(): Promise<void>;
}
