import type { SourceRow } from '../../connectors/base/operations';

/** One change a notification carries, as a source row the job's mapping serializes. */
export interface PushedChange {
  action: 'upsert' | 'delete';
  /** The source record's columns: every mapped one for an upsert, the key columns for a delete. */
  row: SourceRow;
  /**
   * The change's time when the row has no value for the job's watermark field (a delete, an image
   * without `modifiedon`): the operation's time. Any form the watermark type canonicalizes.
   */
  fallbackChangeTracker?: unknown;
  /** Read nulls for mapped columns the row lacks (a post-image leaves null columns out). */
  missingIsNull?: boolean;
}

/** What a notification asks for: changes to send now, and/or a poll of the job. */
export interface PushReading {
  changes: PushedChange[];
  /**
   * Records to read from the source by id before sending (a Dataverse Create or Update without a
   * usable post-image); one gone meanwhile is skipped (its delete follows).
   */
  reads?: Array<{ id: string; fallbackChangeTracker: unknown }>;
  /** Why a normal poll of the job is needed (too many changes, a record not carried in full); undefined when none is. */
  pollReason?: string;
  /** When the sender says it sent the notification (the replay check). */
  sentAt: Date;
  /** Where `sentAt` was read, for the replay message (`$.sentAt`). */
  sentAtPath: string;
}

/**
 * A notification refused: HTTP status, error code and a message naming what is wrong and where
 * (a JSON path into the body, a header or the job's push settings). Never carries a secret.
 */
export class PushRejection extends Error {
  override name = 'PushRejection';
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
