/**
 * How a job takes changes pushed to it (`POST /api/hooks/{job}`), besides its schedule. A pushed
 * change becomes the same queue message a poll would send for it (same message id when it has
 * the same change tracker), so pushed and polled copies of one change are dropped as duplicates
 * by the bus or coalesced by the processor.
 */
export type PushFormat = 'generic' | 'dataverse' | 'businesscentral';

export interface PushSpec {
  /**
   * `generic`: Highwater's own notification body (`{ sentAt, changes: [{ action, record }] }`);
   * `dataverse`: a Dataverse `RemoteExecutionContext` (webhook or Service Bus service endpoint);
   * `businesscentral`: Business Central webhook notifications of a subscription Highwater keeps.
   * Default `generic`.
   */
  format: PushFormat;
  /**
   * App setting holding the shared secret checked by the local host: sent as header
   * `x-highwater-key`, or as `x-highwater-signature: sha256=<hex HMAC-SHA256 of the body>`.
   * The Functions app checks its function key instead. Without it the local host refuses pushes.
   */
  secret?: string;
  /**
   * `generic` and `businesscentral`: app setting holding the value each notification's
   * `clientState` must equal (Business Central: sent when subscribing).
   */
  clientState?: string;
  /**
   * `businesscentral` only: app setting holding the public URL of this job's push endpoint, as
   * Business Central calls it (`https://<app>/api/hooks/<job>?code=<function key>`).
   */
  notificationUrl?: string;
  /**
   * `dataverse` only: the table's logical name, as contexts name it (`PrimaryEntityName`, e.g.
   * `account`). Default: the mapping's source entity; a mapping that also polls names the entity
   * set (`accounts`) there, so set it then.
   */
  table?: string;
  /** `dataverse` only: the organization (environment) id the context's `OrganizationId` must equal. */
  organizationId?: string;
  /**
   * Notifications sent longer ago than this are refused as replays (400). Default 600 s (the bus's
   * duplicate detection window, within which a replayed notification's messages are dropped);
   * `businesscentral` 129 600 s (36 h, how long Business Central retries a notification; its
   * notifications carry only ids, and the record is read as it is now, so a replay does no harm).
   */
  maxAgeSeconds?: number;
  /**
   * `dataverse` only: a post-image lacks the columns that are null (Dataverse leaves them out),
   * so a mapped column missing from the image is read as null. Set it when the image is registered
   * with every mapped column. Default false: a missing column asks for a poll instead.
   */
  imageMissingIsNull: boolean;
}

/** Default of `push.maxAgeSeconds`: the bus's duplicate detection window (10 minutes). */
const DEFAULT_PUSH_MAX_AGE_SECONDS = 600;
/** Default of `push.maxAgeSeconds` for Business Central: how long it retries a notification (36 h). */
const BC_PUSH_MAX_AGE_SECONDS = 36 * 3600;

/** The replay window of a job's pushes, in seconds: `push.maxAgeSeconds`, or its format's default. */
export function pushMaxAgeSeconds(push: Pick<PushSpec, 'format' | 'maxAgeSeconds'>): number {
  return push.maxAgeSeconds ?? (push.format === 'businesscentral' ? BC_PUSH_MAX_AGE_SECONDS : DEFAULT_PUSH_MAX_AGE_SECONDS);
}
