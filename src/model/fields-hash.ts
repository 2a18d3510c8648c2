import { createHash } from 'node:crypto';
import type { JsonValue, QueueMessage } from './queue-message';

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}

/** The hash of what a message applies to its target (action + mapped fields), hex sha256. */
export function appliedFieldsHash(message: Pick<QueueMessage, 'action' | 'fields'>): string {
  return createHash('sha256').update(message.action).update('\n').update(canonicalJson(message.fields)).digest('hex');
}
