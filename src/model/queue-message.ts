import { randomUUID } from 'node:crypto';
import { PermanentError } from '../platform/errors';
import { JobActionType } from './job';

/** A JSON value as carried in a message body. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Current version of the message body contract; bump on incompatible changes. */
export const QUEUE_MESSAGE_VERSION = 1;

/**
 * One detected change, as carried through the queues (body: UTF-8 JSON).
 * The body carries already-mapped target fields: serialization happens at detection time.
 */
export interface QueueMessage {
  version: number;
  /** Job whose target applies this message. */
  jobName: string;
  action: JobActionType.NewUpdate | JobActionType.Delete | JobActionType.InvokeAction;
  /** Source key values joined with `|` (the source record's identity). */
  sourceKey: string;
  /** Target key field → value (key or alternate key of the target record). */
  targetKey: Record<string, JsonValue>;
  /** The watermark value of this change (canonical string of the job's watermark type). */
  changeTracker: string;
  /** Mapped target fields. */
  fields: Record<string, JsonValue>;
  /** Parameters for `InvokeAction`. */
  actionParameters?: Record<string, JsonValue>;
  /** Follows the change from detection to the target (and into response messages). */
  correlationId: string;
  /** When the change was detected (ISO 8601 UTC). */
  detectedAt: string;
  /**
   * The job's resync token when it was reset (absent before the first reset): part of the
   * message id, so that a resend the user asked for is not dropped by duplicate detection.
   */
  resync?: string;
}

const ACTIONS = new Set<string>([JobActionType.NewUpdate, JobActionType.Delete, JobActionType.InvokeAction]);

export function createQueueMessage(
  init: Omit<QueueMessage, 'version' | 'correlationId' | 'detectedAt'> & Partial<Pick<QueueMessage, 'correlationId' | 'detectedAt'>>,
): QueueMessage {
  return {
    version: QUEUE_MESSAGE_VERSION,
    correlationId: init.correlationId ?? randomUUID(),
    detectedAt: init.detectedAt ?? new Date().toISOString(),
    ...init,
  };
}

export function serializeQueueMessage(message: QueueMessage): string {
  return JSON.stringify(message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNonEmptyString = (value: unknown) => typeof value === 'string' && value.length > 0;
const isString = (value: unknown) => typeof value === 'string';

/**
 * The body's fields and what each must be. The expectation is text (or, for the version, built
 * from the value) only when a check fails: building it for every valid message cost more than the checks.
 */
const FIELD_CHECKS: ReadonlyArray<{ field: string; ok: (value: unknown) => boolean; expected: string | ((value: unknown) => string) }> = [
  { field: 'version', ok: (v) => v === QUEUE_MESSAGE_VERSION, expected: (v) => `expected ${QUEUE_MESSAGE_VERSION}, got ${JSON.stringify(v)}` },
  { field: 'jobName', ok: isNonEmptyString, expected: 'expected a non-empty string' },
  { field: 'action', ok: (v) => typeof v === 'string' && ACTIONS.has(v), expected: `expected one of ${[...ACTIONS].join(', ')}` },
  { field: 'sourceKey', ok: isNonEmptyString, expected: 'expected a non-empty string' },
  { field: 'targetKey', ok: isPlainObject, expected: 'expected an object' },
  { field: 'changeTracker', ok: isString, expected: 'expected a string' },
  { field: 'fields', ok: isPlainObject, expected: 'expected an object' },
  { field: 'actionParameters', ok: (v) => v === undefined || isPlainObject(v), expected: 'expected an object' },
  { field: 'correlationId', ok: isString, expected: 'expected a string' },
  { field: 'detectedAt', ok: isString, expected: 'expected a string' },
  { field: 'resync', ok: (v) => v === undefined || typeof v === 'string', expected: 'expected a string' },
];

/**
 * Parses and validates a message body.
 * @throws PermanentError naming what is wrong (a malformed body never becomes valid by retrying).
 */
export function deserializeQueueMessage(body: string | Uint8Array): QueueMessage {
  // A view on the bytes, not a copy: bodies are ~1 KB and this runs for every message.
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // The parser quotes the body itself in its message: keep only the reason (no raw bytes in properties).
    const reason = (err as Error).message.replace(/, "[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
    throw new PermanentError(`malformed message body: not JSON (${reason})`);
  }
  if (!isPlainObject(parsed)) throw new PermanentError('malformed message body: expected a JSON object');
  let problems: string[] | undefined;
  for (const { field, ok, expected } of FIELD_CHECKS) {
    const value = parsed[field];
    if (ok(value)) continue;
    (problems ??= []).push(`${field}: ${typeof expected === 'string' ? expected : expected(value)}`);
  }
  if (problems) throw new PermanentError(`malformed message body: ${problems.join('; ')}`);
  return parsed as unknown as QueueMessage;
}
