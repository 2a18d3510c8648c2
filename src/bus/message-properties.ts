import { createHash } from 'node:crypto';
import { sha256Hex } from '../platform/sha256';
import { errorMessage, errorTypeName } from '../platform/errors';
import { serializeQueueMessage, type QueueMessage } from '../model/queue-message';
import type { ApplicationProperties, OutgoingMessage } from './message-bus';
import { secretNamePattern, URL_USERINFO } from '../platform/secret-vocabulary';

/**
 * The broker-visible side of the message contract (docs/architecture.md, Message contract): message id, subject,
 * application properties and the error properties written on failure.
 */

/** Application properties every work message carries (for filtering and the dead-letter mover). */
export const MESSAGE_PROPERTY = {
  jobName: 'JobName',
  sourceKey: 'SourceKey',
  changeTracker: 'ChangeTracker',
} as const;

/** Application properties set when processing fails (abandon, park, dead-letter). */
export const ERROR_PROPERTY = {
  message: 'ErrorMessage',
  type: 'ErrorType',
  at: 'ErrorAt',
  /**
   * Written by versions before retry copies (a redelivery waited until then); no longer set, kept
   * here so that a resubmit still strips it from such messages.
   */
  retryNotBefore: 'RetryNotBefore',
  /**
   * The processing attempt a retry copy is for (2 for the first retry): retries are scheduled
   * copies, so the count travels in the message, not in the broker's delivery count. Removed on
   * resubmit with the other error properties: a requeued message starts again at attempt 1.
   */
  attempt: 'Attempt',
  /**
   * Why a message was copied to `sbqignored` (outdated, superseded by a newer applied change).
   * Removed on resubmit with the other error properties.
   */
  ignoredReason: 'IgnoredReason',
} as const;

/** Where a resubmitted message came from, e.g. `sbqnormal/$deadletterqueue#42` (set by the dead-letter mover). */
export const RESUBMITTED_FROM = 'ResubmittedFrom';

/**
 * Set (true) on a resubmission a person forced with `--include-superseded`: the processor applies
 * it even when a newer change of its record was applied since. Every other resubmission drops it.
 */
export const FORCE_APPLY = 'ForceApply';

/** Time to live of every message: `P14D`, as the queues are configured. */
export const MESSAGE_TIME_TO_LIVE_MS = 14 * 24 * 60 * 60 * 1000;

const MESSAGE_CONTENT_TYPE = 'application/json';

/** Longest `ErrorMessage` written; longer messages are cut and end with `…`. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;

/** Hex characters of the sha256 kept as message id (Service Bus allows up to 128). */
const MESSAGE_ID_LENGTH = 32;

export interface MessageIdentity {
  jobName: string;
  sourceKey: string;
  changeTracker: string;
  action: string;
  /** The job's resync token, when it was reset: a reset's resend gets ids of its own. */
  resync?: string;
}

/**
 * The deterministic message id: the same change detected twice gets the same id, so the broker's
 * duplicate detection drops the resend. The parts are hashed as a JSON array, so no choice of
 * separator can make two different identities collide (`a|b`,`c` vs `a`,`b|c`). After a reset the
 * job's resync token is a part too: the user asked for everything again, and within the
 * duplicate detection window (10 minutes) the old ids would be dropped.
 */
export function messageIdFor(identity: MessageIdentity): string {
  const base = [identity.jobName, identity.sourceKey, identity.changeTracker, identity.action];
  const parts = JSON.stringify(identity.resync === undefined ? base : [...base, identity.resync]);
  return sha256Hex(parts).slice(0, MESSAGE_ID_LENGTH);
}


/**
 * The message id of a copy of a received message in a side queue (transitive, ignored): derived
 * from that message's id, queue and sequence number, not from the change. A crash between the
 * copy and the completion redelivers the same message, whose copy gets the same id (dropped as a
 * duplicate); the same change parked again later — resubmitted by the mover, failed again — comes
 * from another message and gets another id. (With the change's own id the second copy would be
 * dropped by duplicate detection within its window, and the change lost.)
 */
export function sideQueueCopyId(received: { messageId: string; sequenceNumber: string }, queue: string): string {
  const parts = [received.messageId, queue, received.sequenceNumber];
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, MESSAGE_ID_LENGTH);
}

/** The broker message for a queue message; `extraProperties` are added to (and may override) the standard ones. */
export function toOutgoingMessage(message: QueueMessage, extraProperties: ApplicationProperties = {}): OutgoingMessage {
  return {
    body: serializeQueueMessage(message),
    messageId: messageIdFor(message),
    subject: message.jobName,
    correlationId: message.correlationId,
    contentType: MESSAGE_CONTENT_TYPE,
    timeToLiveMs: MESSAGE_TIME_TO_LIVE_MS,
    applicationProperties: {
      [MESSAGE_PROPERTY.jobName]: message.jobName,
      [MESSAGE_PROPERTY.sourceKey]: message.sourceKey,
      [MESSAGE_PROPERTY.changeTracker]: message.changeTracker,
      ...extraProperties,
    },
  };
}

/** Names whose `name=value` / `"name": "value"` values are secrets: the shared vocabulary. */
const SECRET_NAME = secretNamePattern();

const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Connection strings, query strings and form bodies: AccountKey=…; Password=…; sig=…&
  [new RegExp(String.raw`\b(${SECRET_NAME})=([^;&\s"',]+)`, 'gi'), '$1=***'],
  // JSON or YAML: "password": "…", client_secret: …
  // (Not an auth scheme word: `Authorization: Bearer …` is the header pattern's, below.)
  [new RegExp(String.raw`("?\b${SECRET_NAME}"?\s*:\s*"?)(?!(?:Bearer|Basic)\s)([^"\s,;}]+)`, 'gi'), '$1***'],
  // Authorization headers.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 ***'],
  // Credentials in URLs: all user info (user:password, a token alone, encoded credentials).
  [URL_USERINFO, '$1***@'],
  // Bare JWTs (three base64url segments starting with a JSON header).
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '***'],
];

/** Replaces secret-looking values (keys, passwords, tokens, SAS signatures) with `***`. */
export function scrubSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

/** Scrubs secrets, then cuts to `maxLength` characters (the last one `…` when cut). */
export function safeErrorText(text: string, maxLength: number = MAX_ERROR_MESSAGE_LENGTH): string {
  const scrubbed = scrubSecrets(text);
  return scrubbed.length <= maxLength ? scrubbed : `${scrubbed.slice(0, maxLength - 1)}…`;
}

/** The error properties for a failed message: message (scrubbed, capped), error type name, time (ISO 8601 UTC). */
export function errorProperties(err: unknown, now: Date): ApplicationProperties {
  return {
    [ERROR_PROPERTY.message]: safeErrorText(errorMessage(err)),
    [ERROR_PROPERTY.type]: errorTypeName(err),
    [ERROR_PROPERTY.at]: now.toISOString(),
  };
}

/** Application properties without the error properties (for resubmitting a failed message). */
export function withoutErrorProperties(properties: ApplicationProperties): ApplicationProperties {
  const errorNames = new Set<string>(Object.values(ERROR_PROPERTY));
  return Object.fromEntries(Object.entries(properties).filter(([name]) => !errorNames.has(name)));
}
