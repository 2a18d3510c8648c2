/**
 * The error taxonomy, named for what the caller should do with the failed work.
 *
 * - `TransientError`: try again later (the default for anything unclassified).
 * - `TransitiveError`: the work cannot be applied yet (a dependency is missing); park it.
 * - `PermanentError`: the work can never succeed as it is; dead-letter it at once.
 * - `ConfigError`: the configuration or input is wrong; fix it before retrying.
 *
 * Classification goes by `name` (see {@link errorKind}), never by `instanceof`, so that errors
 * thrown by a second copy of this module (or rebuilt from a message) still classify correctly.
 */
export type ErrorKind = 'transient' | 'transitive' | 'permanent' | 'config';

export interface HighwaterErrorOptions {
  cause?: unknown;
  /** Extra, non-secret details for error properties and logs. */
  details?: Record<string, string | number | boolean | undefined>;
  /** For transient errors: the earliest moment a retry makes sense (e.g. from `Retry-After`). */
  retryAfterMs?: number;
}

export abstract class HighwaterError extends Error {
  abstract readonly kind: ErrorKind;
  readonly details?: HighwaterErrorOptions['details'];
  readonly retryAfterMs?: number;
  constructor(message: string, options: HighwaterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export class TransientError extends HighwaterError {
  readonly kind = 'transient' as const;
  override readonly name = 'TransientError';
}

export class TransitiveError extends HighwaterError {
  readonly kind = 'transitive' as const;
  override readonly name = 'TransitiveError';
}

export class PermanentError extends HighwaterError {
  readonly kind = 'permanent' as const;
  override readonly name = 'PermanentError';
}

export class ConfigError extends HighwaterError {
  readonly kind = 'config' as const;
  override readonly name = 'ConfigError';
}

const KIND_BY_NAME: Record<string, ErrorKind> = {
  TransientError: 'transient',
  TransitiveError: 'transitive',
  PermanentError: 'permanent',
  ConfigError: 'config',
};

/** What to do with an error: by its `name`; anything unknown is transient (retryable). */
export function errorKind(err: unknown): ErrorKind {
  if (err && typeof err === 'object' && 'name' in err) {
    const kind = KIND_BY_NAME[String((err as { name: unknown }).name)];
    if (kind) return kind;
  }
  return 'transient';
}

/** A one-line message for any thrown value. */
export function errorMessage(err: unknown): string {
  // Duck-typed: errors from another realm (native addons under jest, worker threads) fail instanceof.
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** The type name written to the `ErrorType` property. */
export function errorTypeName(err: unknown): string {
  if (err && typeof err === 'object' && 'name' in err) return String((err as { name: unknown }).name);
  return typeof err;
}
