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
 * Applies messages to a target system: what the processing calls. A group goes through
 * `applyBatch`; a two-way pair writes one record at a time (`upsert`, `delete`). Every method
 * throws the error taxonomy of `src/platform/errors.ts` (classified at the adapter boundary):
 * `TransitiveError` when a dependency is missing, `PermanentError` when the message can never be
 * applied, `TransientError` otherwise. Adapters keep their single-message methods for actions and
 * version reads (see `SingleTarget` in apply-one-by-one.ts) off this port: only their own
 * `applyBatch` calls them.
 */
export interface TargetConnector extends BatchTarget {
  /** Inserts or updates the record identified by `message.targetKey` with `message.fields`. */
  upsert(message: QueueMessage, mapping: Mapping, context?: UpsertContext): Promise<UpsertResult>;
  /** Deletes the record identified by `message.targetKey`; deleting a missing record succeeds. */
  delete(message: QueueMessage, mapping: Mapping): Promise<void>;
  close(): Promise<void>;
}
