import { classifyError, MALFORMED_ANSWER, stringCode } from '../base/error-classification';
import { createError, type ErrorRule, matchRule } from '../../src/platform/error-table';
import type { HighwaterError } from '../../src/platform/errors';

/**
 * Every failure of an OData service Highwater tells apart, first match wins; codes are
 * `<METHOD> <status>` for HTTP answers, or the network error's code. A request conditional on a
 * record it read (`If-Match`) is looked up as `<METHOD> <status> if-match` first, then as the
 * plain code. Unmatched codes are transient. A 404 on a read means the path is wrong; on a
 * write it means a record the write refers to is not there (yet), except on a conditional
 * update: that record was there when it was read and has been deleted since. 401 keeps the
 * service's message out (it may name the tenant).
 */
const ODATA_ERROR_RULES: readonly ErrorRule[] = [
  // Not a missing dependency (parking would wait for a record that is gone for good): the write
  // is decided again from a fresh read, which finds no record and creates it (upsert).
  { code: 'PATCH 404 if-match', kind: 'transient', reason: 'the record was deleted since it was read (read again: it is created)' },
  { code: /^\w+ 429$/, kind: 'transient', reason: 'throttled by the service (retry after Retry-After)' },
  { code: /^\w+ 503$/, kind: 'transient', reason: 'the service is unavailable (retry after Retry-After)' },
  { code: /^\w+ 401$/, kind: 'config', reason: 'authentication failed: check settings.auth and its secret', hideDriverMessage: true },
  { code: /^\w+ 403$/, kind: 'config', reason: 'access denied: the identity lacks a permission' },
  // The mapping and the service disagree: every message fails alike until someone fixes it, so
  // the target pauses (config) instead of parking or dead-lettering each message. Told apart by
  // the service's words, because a 404 for one record (a PATCH or lookup of a record that is not
  // there) stays transitive: CAP answers "Invalid resource path", Dataverse and Business Central
  // (Microsoft's OData library) "Resource not found for the segment", Business Central with its
  // code BadRequest_NotFound (a missing record there is Internal_RecordNotFound); for a property CAP says
  // `Property "x" does not exist in …`, Microsoft's library "The property 'x' does not exist on
  // type …" or "Could not find a property named 'x' …". (Any 404 on a read is the next rule's.)
  { code: /^(?!GET )\w+ 404$/, message: /Invalid resource path|Resource not found for the segment|\[BadRequest_NotFound\]$/, kind: 'config', reason: 'the entity set does not exist' },
  { code: /^\w+ 400$/, message: /\bproperty\b[^.]*\bdoes not exist\b|Could not find a property named/i, kind: 'config', reason: 'a property does not exist on the entity' },
  { code: /^GET 404$/, kind: 'config', reason: 'the entity set or path does not exist' },
  { code: /^\w+ 404$/, kind: 'transitive', reason: 'a referenced record does not exist (yet)' },
  { code: /^\w+ 410$/, kind: 'transient', reason: 'the link is no longer valid' },
  { code: /^\w+ 412$/, kind: 'transient', reason: 'the record changed since it was read (ETag)' },
  { code: /^\w+ 409$/, kind: 'transient', reason: 'conflict with a concurrent change' },
  { code: /^\w+ 428$/, kind: 'config', reason: 'the service requires If-Match: use upsertMode read-then-write' },
  { code: /^\w+ (400|422)$/, kind: 'permanent', reason: 'the service rejected the request' },
  { code: /^\w+ 413$/, kind: 'permanent', reason: 'the request is too large' },
  { code: /^\w+ (405|501)$/, kind: 'config', reason: 'the service does not support this operation' },
  { code: /^\w+ 408$/, kind: 'transient', reason: 'the service timed out' },
  { code: /^\w+ 5\d\d$/, kind: 'transient', reason: 'server error' },
  { code: /^\w+ 4\d\d$/, kind: 'permanent', reason: 'the service refused the request' },
  { code: 'TimeoutError', kind: 'transient', reason: 'no answer within settings.timeoutMs' },
  { code: 'InvalidResponse', kind: MALFORMED_ANSWER, reason: 'the answer is not OData JSON' },
  {
    code: /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR_\w+)$/,
    kind: 'transient',
    reason: 'the service is unreachable',
  },
];

/** An unsuccessful HTTP answer, before classification. */
export interface HttpFailure {
  method: string;
  status: number;
  /** The service's error message (`error.message`), or the start of a non-JSON body. */
  message: string;
  /** The service's own error code (`error.code`), e.g. Dataverse `0x80044352`. */
  serviceCode?: string;
  /** The answer's `Retry-After` ({@link parseRetryAfter}); kept only when the failure is transient. */
  retryAfterMs?: number;
  /** The request carried `If-Match` (conditional on the record it read). Default false. */
  conditional?: boolean;
}

/** The `error` object of an OData error body (`{ "error": { "code", "message" } }`), else the body's first 300 characters. */
export function parseErrorBody(text: string, statusText: string): { message: string; serviceCode?: string } {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const error = parsed?.error;
    if (error && typeof error === 'object') {
      const message = typeof error.message === 'string' ? error.message : statusText;
      const serviceCode = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : undefined;
      return { message, serviceCode };
    }
  } catch {
    // not JSON: fall through
  }
  const trimmed = text.trim().replace(/\s+/g, ' ');
  return { message: trimmed === '' ? statusText : trimmed.slice(0, 300) };
}

/**
 * The longest `Retry-After` taken from a service, ms (1 hour). A larger value (a date days ahead
 * from a misconfigured gateway, a typo) would hold a message that long; past this bound the
 * message is retried after an hour, and its attempts still end in the dead-letter queue.
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * `Retry-After` in ms: delta seconds or an HTTP date (relative to `now`), at most
 * {@link MAX_RETRY_AFTER_MS}; undefined when absent or unreadable, 0 for a date in the past.
 */
export function parseRetryAfter(header: string | null | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

export interface ClassifyHttpOptions {
  /** What was being done, e.g. `odata connection "crm": upsert Books(ID=1)`. */
  operation: string;
  redact: (text: string) => string;
}

/**
 * An HTTP failure in the taxonomy (see {@link ODATA_ERROR_RULES}), with the service's code in
 * details. `Retry-After` is honoured on every answer that is retried (transient), whatever its
 * status: services send it on 429 and 503, Business Central also on 502, gateways on others.
 */
export function classifyHttpFailure(failure: HttpFailure, options: ClassifyHttpOptions): HighwaterError {
  const plain = `${failure.method} ${failure.status}`;
  const shown = failure.serviceCode && failure.serviceCode !== String(failure.status) ? `${failure.message} [${failure.serviceCode}]` : failure.message;
  const conditional = `${plain} if-match`;
  const code = failure.conditional && matchRule(ODATA_ERROR_RULES, conditional, shown) ? conditional : plain;
  const classified = classifyError({ code, message: shown }, ODATA_ERROR_RULES, { codeOf: stringCode, operation: options.operation, redact: options.redact });
  const retryAfterMs = classified.kind === 'transient' ? failure.retryAfterMs : undefined;
  return createError(classified.kind, classified.message, {
    details: { code: plain, status: failure.status, serviceCode: failure.serviceCode },
    retryAfterMs,
  });
}

/** Whether request headers make it conditional on a record read before (`If-Match`, any case). */
export function hasIfMatch(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'if-match');
}

/** A thrown network / timeout error in the taxonomy. */
export function classifyNetworkError(err: unknown, options: ClassifyHttpOptions): HighwaterError {
  // fetch reports "fetch failed" and keeps what happened (ECONNREFUSED …) in its cause.
  const cause = err && typeof err === 'object' && 'cause' in err ? err.cause : undefined;
  const causeMessage = cause && typeof cause === 'object' && 'message' in cause && typeof cause.message === 'string' ? cause.message : undefined;
  const shown = { code: networkErrorCode(err), message: causeMessage ?? (err instanceof Error ? err.message : String(err)) };
  return classifyError(shown, ODATA_ERROR_RULES, { codeOf: stringCode, operation: options.operation, redact: options.redact });
}

/** `TimeoutError` for an aborted-by-timeout fetch, else the errno code of the error or its cause. */
function networkErrorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'name' in err && err.name === 'TimeoutError') return 'TimeoutError';
  const cause = err && typeof err === 'object' && 'cause' in err ? err.cause : undefined;
  return stringCode(err) ?? stringCode(cause);
}
