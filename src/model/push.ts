/**
 * How a job takes changes pushed to it (`POST /api/hooks/{job}`), besides its schedule. A pushed
 * change becomes the same queue message a poll would send for it (same message id when it has
 * the same change tracker), so pushed and polled copies of one change are dropped as duplicates
 * by the bus or coalesced by the processor.
 */
export type PushFormat = 'generic' | 'dataverse';

export interface PushSpec {
  /**
   * `generic`: Highwater's own notification body (`{ sentAt, changes: [{ action, record }] }`);
   * `dataverse`: a Dataverse `RemoteExecutionContext` (webhook or Service Bus service endpoint).
   * Default `generic`.
   */
  format: PushFormat;
  /**
   * App setting holding the shared secret checked by the local host: sent as header
   * `x-highwater-key`, or as `x-highwater-signature: sha256=<hex HMAC-SHA256 of the body>`.
   * The Functions app checks its function key instead. Without it the local host refuses pushes.
   */
  secret?: string;
  /** `generic` only: app setting holding the value the body's `clientState` must equal. */
  clientState?: string;
  /** `dataverse` only: the organization (environment) id the context's `OrganizationId` must equal. */
  organizationId?: string;
  /**
   * Notifications sent longer ago than this are refused as replays (400). Default 600 s: the
   * bus's duplicate detection window, within which a replayed notification's messages are dropped.
   */
  maxAgeSeconds: number;
  /**
   * `dataverse` only: a post-image lacks the columns that are null (Dataverse leaves them out),
   * so a mapped column missing from the image is read as null. Set it when the image is registered
   * with every mapped column. Default false: a missing column asks for a poll instead.
   */
  imageMissingIsNull: boolean;
}
