import { BusError, isBusError, type BusErrorCode } from '../message-bus';
import { safeErrorText } from '../message-properties';

/**
 * The one table that turns what `@azure/service-bus`, its administration client, `@azure/identity`
 * and the network throw into {@link BusError} codes. Messages are scrubbed of secrets (the
 * original error is not attached as `cause`: SDK errors carry requests with SAS headers).
 */

/** `ServiceBusError.code` (and its AMQP-level predecessors in `MessagingError.code`). */
const SERVICE_BUS_CODES: Record<string, BusErrorCode> = {
  MessageLockLost: 'LockLost',
  MessageLockLostError: 'LockLost',
  SessionLockLost: 'LockLost',
  SessionLockLostError: 'LockLost',
  // The broker answers this when a lock token no longer names a locked message.
  MessageNotFound: 'LockLost',
  MessagingEntityNotFound: 'QueueNotFound',
  MessagingEntityNotFoundError: 'QueueNotFound',
  MessageEntityNotFoundError: 'QueueNotFound',
  MessageSizeExceeded: 'MessageTooLarge',
  MessageTooLargeError: 'MessageTooLarge',
  ServiceBusy: 'Unavailable',
  ServerBusyError: 'Unavailable',
  ServiceTimeout: 'Unavailable',
  OperationTimeoutError: 'Unavailable',
  ServiceUnavailableError: 'Unavailable',
  ServiceCommunicationProblem: 'Unavailable',
  ServiceCommunicationError: 'Unavailable',
  QuotaExceeded: 'Unavailable',
  QuotaExceededError: 'Unavailable',
  // A disabled queue comes back when an operator enables it again.
  MessagingEntityDisabled: 'Unavailable',
  SessionCannotBeLocked: 'Unavailable',
  ConnectionForcedError: 'Unavailable',
  ConnectionRefusedError: 'Unavailable',
  // Unclassified client-library errors: retry, as the error taxonomy does with anything unknown.
  GeneralError: 'Unavailable',
  UnauthorizedAccess: 'Unauthorized',
  UnauthorizedError: 'Unauthorized',
  UnauthorizedRequestError: 'Unauthorized',
  MessagingEntityAlreadyExists: 'InvalidArgument',
  MessageEntityAlreadyExistsError: 'InvalidArgument',
  InvalidOperationError: 'InvalidArgument',
  ArgumentError: 'InvalidArgument',
  ArgumentOutOfRangeError: 'InvalidArgument',
};

/** Node.js system error codes (`err.code`) of a connection that could not be made or broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'ESOCKETTIMEDOUT',
]);

/** HTTP status of the administration client's `RestError`. */
function codeOfStatus(status: number): BusErrorCode | undefined {
  if (status === 401 || status === 403) return 'Unauthorized';
  if (status === 404) return 'QueueNotFound';
  if (status === 400 || status === 409) return 'InvalidArgument';
  if (status === 408 || status === 429 || status >= 500) return 'Unavailable';
  return undefined;
}

/** Error names (`err.name`) that say what happened whatever their code. */
const NAME_CODES: Record<string, BusErrorCode> = {
  // @azure/identity: no managed identity / login available, or the token request was refused.
  CredentialUnavailableError: 'Unauthorized',
  AuthenticationError: 'Unauthorized',
  AggregateAuthenticationError: 'Unauthorized',
  // Argument validation in the SDK.
  TypeError: 'InvalidArgument',
  RangeError: 'InvalidArgument',
  // Cancelled by a timeout signal: the broker did not answer in time.
  AbortError: 'Unavailable',
};

/** Plain `Error` messages of the SDK that mean a settled or unknown lock. */
const LOCK_LOST_MESSAGES = [/has either been deleted or already settled/i, /lock.*(expired|lost)/i];

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/** The bus error code for anything thrown by the SDK or the network (`Unavailable` when unknown). */
export function busErrorCodeOf(err: unknown): BusErrorCode {
  if (isBusError(err)) return err.code;
  if (typeof err !== 'object' || err === null) return 'Unavailable';
  const e = err as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && NETWORK_CODES.has(code)) return 'Unavailable';
  const status = typeof e.statusCode === 'number' ? codeOfStatus(e.statusCode) : undefined;
  if (status) return status;
  if (code && code in SERVICE_BUS_CODES) return SERVICE_BUS_CODES[code];
  const name = typeof e.name === 'string' ? e.name : '';
  if (name in NAME_CODES) return NAME_CODES[name];
  const message = typeof e.message === 'string' ? e.message : '';
  if (LOCK_LOST_MESSAGES.some((pattern) => pattern.test(message))) return 'LockLost';
  return 'Unavailable';
}

export interface ErrorContext {
  /** What was being done, e.g. `send`, `complete`. */
  operation: string;
  queue?: string;
}

/** Wraps anything thrown at the adapter boundary into a {@link BusError} (a BusError passes through). */
export function toBusError(err: unknown, context: ErrorContext): BusError {
  if (isBusError(err)) return err;
  const code = busErrorCodeOf(err);
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  const sdkCode = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'Error';
  const detail = typeof e.message === 'string' ? e.message : String(err);
  const where = context.queue === undefined ? context.operation : `${context.operation} on queue '${context.queue}'`;
  return new BusError(code, `${where} failed (${sdkCode}): ${safeErrorText(detail, 500)}`);
}

/** Runs `operation`, translating whatever it throws with {@link toBusError}. */
export async function translateErrors<T>(context: ErrorContext, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw toBusError(err, context);
  }
}
