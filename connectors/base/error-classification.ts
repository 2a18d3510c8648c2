import {
  ConfigError,
  type ErrorKind,
  errorMessage,
  type HighwaterError,
  type HighwaterErrorOptions,
  PermanentError,
  TransientError,
  TransitiveError,
} from '../../src/model/errors';

/**
 * One row of an adapter's error table. The first rule whose `code` (and `message`, when given)
 * matches decides the kind; each adapter keeps all of its rules in one table.
 */
export interface ErrorRule {
  /** Driver code: exact text, or a pattern such as `/^08/` for a whole SQLSTATE class. */
  code: string | RegExp;
  /** Also required to match the driver message (for drivers that use one code for many causes). */
  message?: RegExp;
  kind: ErrorKind;
  /** What happened, in words; starts the error message. */
  reason: string;
  /** Leave the driver's own message out (auth failures: keep user names and hosts out of logs). */
  hideDriverMessage?: boolean;
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
  const rule = code === undefined ? undefined : rules.find((r) => codeMatches(r.code, code) && (!r.message || r.message.test(driverMessage)));
  const kind = rule?.kind ?? options.fallback ?? 'transient';
  const reason = rule?.reason ?? 'unexpected error';
  const message = rule?.hideDriverMessage
    ? `${options.operation}: ${reason} (${code})`
    : `${options.operation}: ${reason}${code === undefined ? '' : ` (${code})`}: ${driverMessage}`;
  // An auth failure keeps the driver error out of `cause`, where loggers would print it.
  return createError(kind, message, { cause: rule?.hideDriverMessage ? undefined : err, details: { code } });
}

export function createError(kind: ErrorKind, message: string, options: HighwaterErrorOptions = {}): HighwaterError {
  switch (kind) {
    case 'transitive':
      return new TransitiveError(message, options);
    case 'permanent':
      return new PermanentError(message, options);
    case 'config':
      return new ConfigError(message, options);
    default:
      return new TransientError(message, options);
  }
}

function codeMatches(pattern: string | RegExp, code: string): boolean {
  return typeof pattern === 'string' ? pattern === code : pattern.test(code);
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
