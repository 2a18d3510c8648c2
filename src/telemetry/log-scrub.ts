import { scrubSecrets } from '../bus/message-properties';
import { isSecretName } from '../platform/secret-vocabulary';

/** Nesting of a context value scrubbed; deeper values are left out (a log line is no dump). */
const MAX_DEPTH = 6;

/**
 * A log line's context without secrets, before any adapter writes it: a property named as a
 * secret (`password`, `clientSecret`, `sig`…) becomes `***` whatever its value, and text values
 * lose secret-looking parts (`AccountKey=…`, bearer tokens, URL passwords) as error texts do.
 * Lines carry error texts and source values, which may hold a connection string.
 */
export function scrubContext(context: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return context === undefined ? undefined : scrubObject(context, 0);
}

/** A log message without secret-looking values. */
export function scrubMessage(message: string): string {
  return scrubSecrets(message);
}

function scrubObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = isSecretName(key) && inner !== undefined && inner !== null ? '***' : scrubValue(inner, depth + 1);
  return out;
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (depth > MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  if (value instanceof Error) return scrubSecrets(value.message);
  return scrubObject(value as Record<string, unknown>, depth);
}
