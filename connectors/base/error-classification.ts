import { type ErrorKind, errorMessage, type HighwaterError, type HighwaterErrorOptions } from '../../src/platform/errors';
import { createError, type ErrorRule, matchRule } from '../../src/platform/error-table';

// The rule shape and the kind → error switch are the project's one (src/platform/error-table.ts);
// exported here too for the adapters' tables.
export { type ErrorRule } from '../../src/platform/error-table';

/**
 * What a connector does when a service answers something malformed: not the format asked for,
 * a `$batch` part without an HTTP status line, an answer missing for a request. Decided here
 * once for every connector: transient. Such an answer says nothing about the message itself;
 * mostly it is a proxy or gateway glitch (an HTML error page, a cut-off body) that the next try
 * does not meet, and for a `$batch` it leaves unknown which writes were applied, which only a
 * retry (upserts are idempotent) settles. A lasting cause (a service version that answers
 * differently) loses nothing either: the retries end in the dead-letter queue after
 * maxDeliveryCount. Permanent would dead-letter every message of the batch at once on a glitch,
 * for someone to resubmit by hand, and a resubmitted message can then overwrite a newer change
 * applied meanwhile.
 */
export const MALFORMED_ANSWER: ErrorKind = 'transient';

/** The error of a malformed answer of a service (see {@link MALFORMED_ANSWER}). */
export function malformedAnswer(message: string, options?: HighwaterErrorOptions): HighwaterError {
  return createError(MALFORMED_ANSWER, message, options);
}

export interface ClassifyOptions {
  /** Reads the driver's code from a thrown value (SQLITE_*, SQLSTATE, errno). */
  codeOf: (err: unknown) => string | undefined;
  /** What was being done, e.g. `postgres connection "crm": upsert into "customers"`. */
  operation: string;
  /** Removes secret values from driver messages. Default: identity. */
  redact?: (text: string) => string;
  /** Kind of errors no rule matches. Default `transient` (retry). */
  fallback?: ErrorKind;
}

/**
 * Turns a driver error into the taxonomy: `<operation>: <reason> (<code>): <driver message>`,
 * with the code in `details.code` and the driver error as `cause`. Errors of the taxonomy pass
 * through unchanged.
 */
export function classifyError(err: unknown, rules: readonly ErrorRule[], options: ClassifyOptions): HighwaterError {
  if (isHighwaterError(err)) return err;
  const redact = options.redact ?? ((text: string) => text);
  const code = options.codeOf(err);
  const driverMessage = redact(messageOf(err));
  const rule = code === undefined ? undefined : matchRule(rules, code, driverMessage);
  const kind = rule?.kind ?? options.fallback ?? 'transient';
  const reason = rule?.reason ?? 'unexpected error';
  const message = rule?.hideDriverMessage
    ? `${options.operation}: ${reason} (${code})`
    : `${options.operation}: ${reason}${code === undefined ? '' : ` (${code})`}: ${driverMessage}`;
  // An auth failure keeps the driver error out of `cause`, where loggers would print it.
  return createError(kind, message, { cause: rule?.hideDriverMessage ? undefined : err, details: { code } });
}

// Duck-typed rather than `instanceof`: errors made by a native driver can come from another
// realm (a second copy of a module, a jest sandbox), where `instanceof Error` is false.
function isHighwaterError(err: unknown): err is HighwaterError {
  return (
    typeof err === 'object' && err !== null && 'kind' in err && 'name' in err &&
    ['TransientError', 'TransitiveError', 'PermanentError', 'ConfigError'].includes(String(err.name))
  );
}

function messageOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string') return err.message;
  return errorMessage(err);
}

/** The `code` property of a thrown value when it is a string (Node errno codes, SQLite, SQLSTATE). */
export function stringCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
  }
  return undefined;
}
