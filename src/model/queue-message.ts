import { randomUUID } from 'node:crypto';
import { PermanentError } from './errors';
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

/**
 * Parses and validates a message body.
 * @throws PermanentError naming what is wrong (a malformed body never becomes valid by retrying).
 */
export function deserializeQueueMessage(body: string | Uint8Array): QueueMessage {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // The parser quotes the body itself in its message: keep only the reason (no raw bytes in properties).
    const reason = (err as Error).message.replace(/, "[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
    throw new PermanentError(`malformed message body: not JSON (${reason})`);
  }
  if (!isPlainObject(parsed)) throw new PermanentError('malformed message body: expected a JSON object');
  const problems: string[] = [];
  const need = (field: string, ok: boolean, what: string) => {
    if (!ok) problems.push(`${field}: ${what}`);
  };
  need('version', parsed.version === QUEUE_MESSAGE_VERSION, `expected ${QUEUE_MESSAGE_VERSION}, got ${JSON.stringify(parsed.version)}`);
  need('jobName', typeof parsed.jobName === 'string' && parsed.jobName.length > 0, 'expected a non-empty string');
  need('action', typeof parsed.action === 'string' && ACTIONS.has(parsed.action), `expected one of ${[...ACTIONS].join(', ')}`);
  need('sourceKey', typeof parsed.sourceKey === 'string' && parsed.sourceKey.length > 0, 'expected a non-empty string');
  need('targetKey', isPlainObject(parsed.targetKey), 'expected an object');
  need('changeTracker', typeof parsed.changeTracker === 'string', 'expected a string');
  need('fields', isPlainObject(parsed.fields), 'expected an object');
  need('actionParameters', parsed.actionParameters === undefined || isPlainObject(parsed.actionParameters), 'expected an object');
  need('correlationId', typeof parsed.correlationId === 'string', 'expected a string');
  need('detectedAt', typeof parsed.detectedAt === 'string', 'expected a string');
  if (problems.length > 0) throw new PermanentError(`malformed message body: ${problems.join('; ')}`);
  return parsed as unknown as QueueMessage;
}
