import type { Clock } from '../../platform/clock';
import type { FileSyncer } from '../../sqlite/wal-sync';
import type { IntegrityCheckOptions } from './integrity-check';
import { BusError } from '../message-bus';

/** Per-queue settings, named and defaulted as in Service Bus. */
export interface QueueOptions {
  /** How long a receive holds a message before it is delivered again. Default 60 000 (1 min). */
  lockDurationMs?: number;
  /** Deliveries before abandon (or lock expiry) dead-letters the message. Default 10. */
  maxDeliveryCount?: number;
  /** Time to live of messages that set none; also caps the ones that do. Default 14 days. */
  defaultTimeToLiveMs?: number;
  /** Whether an expired message moves to the dead-letter subqueue (else it is dropped). Default true. */
  deadLetteringOnMessageExpiration?: boolean;
  /** Whether a `messageId` seen within the window is dropped on send. Default true. */
  requiresDuplicateDetection?: boolean;
  /** How long a `messageId` is remembered for duplicate detection. Default 600 000 (10 min). */
  duplicateDetectionWindowMs?: number;
  /** Largest message (body + properties + headers, in bytes) and batch. Default 262 144 (256 KiB). */
  maxMessageSizeBytes?: number;
}

export type ResolvedQueueOptions = Required<QueueOptions>;

/** A queue to declare: its name, or its name with options. */
export type QueueDeclaration = string | ({ name: string } & QueueOptions);

export interface LocalBusOptions {
  /** Folder holding the database file; created if missing. */
  dataDir: string;
  /** Database file name inside `dataDir`. Default `bus.sqlite`. */
  fileName?: string;
  /**
   * Queues to declare on open: created when missing; options given here overwrite the stored
   * ones. Queues declared earlier (by this or another process) stay known. Default none.
   */
  queues?: QueueDeclaration[];
  /**
   * Time of message semantics (enqueue, locks, TTL, scheduling, duplicate window). Default the
   * system clock. Waiting (`maxWaitMs`, polling) always uses real timers.
   */
  clock?: Pick<Clock, 'now'>;
  /** How long a statement waits for another process's write lock before `Unavailable`. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * How often a waiting receive looks for messages that no in-process send announced (sent by
   * another process, a lock that expired, a scheduled time reached). Default 100.
   */
  pollIntervalMs?: number;
  /**
   * How durable a resolved call is. Default `NORMAL`: it survives a crash of any process; the
   * last commits may be lost on power loss or OS crash (the file stays consistent).
   * `FULL`: a send (also `sendBatch`, scheduled), `deadLetter` or `createQueue` also survives
   * power loss: it resolves only after an fdatasync of the WAL, run off the event loop and
   * shared by all commits made before it started (the connection itself commits with NORMAL;
   * see `commit-sync.ts`). Receive, complete, abandon and renewLock do not wait: what they lose
   * on power loss is a delivery that happens again. A failed flush rejects the waiting calls
   * with BusError `Unavailable` (retryable).
   */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * With `synchronous: 'FULL'`: flushes the WAL file to disk. Default: open, fdatasync (and,
   * the first time, fsync of the folder), close, on libuv's thread pool. Tests inject one.
   */
  syncFile?: FileSyncer;
  /**
   * An existing file is checked with `PRAGMA quick_check` before it is used; a damaged one is
   * refused (`Corrupt`, saying what to do). Small files inline, large ones on a worker thread
   * bounded in time (see {@link IntegrityCheckOptions} for the defaults).
   */
  integrityCheck?: IntegrityCheckOptions;
}

export const DEFAULT_QUEUE_OPTIONS: ResolvedQueueOptions = {
  lockDurationMs: 60_000,
  maxDeliveryCount: 10,
  defaultTimeToLiveMs: 14 * 24 * 60 * 60 * 1000,
  deadLetteringOnMessageExpiration: true,
  requiresDuplicateDetection: true,
  duplicateDetectionWindowMs: 10 * 60 * 1000,
  maxMessageSizeBytes: 256 * 1024,
};

export const DEFAULT_FILE_NAME = 'bus.sqlite';
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
export const DEFAULT_POLL_INTERVAL_MS = 100;

/** Service Bus entity names: letters, digits, `.`, `-`, `_`, `/`; at most 260 characters, letter or digit first and last. */
const QUEUE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,258}[A-Za-z0-9])?$/;

export function validateQueueName(name: unknown): string {
  if (typeof name !== 'string' || !QUEUE_NAME.test(name)) {
    throw new BusError(
      'InvalidArgument',
      `queue name ${JSON.stringify(name)} is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`,
    );
  }
  return name;
}

const POSITIVE_INTEGERS = [
  'lockDurationMs',
  'maxDeliveryCount',
  'defaultTimeToLiveMs',
  'duplicateDetectionWindowMs',
  'maxMessageSizeBytes',
] as const;
const BOOLEANS = ['deadLetteringOnMessageExpiration', 'requiresDuplicateDetection'] as const;

/** Checks the given options (naming the property path) and returns only the ones given. */
export function validateQueueOptions(queue: string, options: QueueOptions): QueueOptions {
  const out: QueueOptions = {};
  for (const key of POSITIVE_INTEGERS) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new BusError('InvalidArgument', `queues.${queue}.${key} must be a positive integer, got ${String(value)}`);
    }
    out[key] = value;
  }
  for (const key of BOOLEANS) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') {
      throw new BusError('InvalidArgument', `queues.${queue}.${key} must be a boolean, got ${String(value)}`);
    }
    out[key] = value;
  }
  return out;
}

/** Splits a declaration into its name and given options, both validated. */
export function parseDeclaration(declaration: QueueDeclaration): { name: string; options: QueueOptions } {
  if (typeof declaration === 'string') return { name: validateQueueName(declaration), options: {} };
  const { name, ...options } = declaration;
  validateQueueName(name);
  return { name, options: validateQueueOptions(name, options) };
}
