/**
 * The message bus port. Adapters (local SQLite, Azure Service Bus) implement it with Service Bus
 * semantics and expose no SDK types. Every method may throw a {@link BusError} with one of the
 * codes below; anything else escaping an adapter is a bug in that adapter.
 */

/** Application property values (Service Bus allows these scalar types). */
export type PropertyValue = string | number | boolean | null;
export type ApplicationProperties = Record<string, PropertyValue>;

export interface OutgoingMessage {
  /** UTF-8 text (usually JSON) or raw bytes. */
  body: string | Uint8Array;
  /** Used for duplicate detection; a random id when omitted. */
  messageId?: string;
  subject?: string;
  correlationId?: string;
  contentType?: string;
  applicationProperties?: ApplicationProperties;
  /** Milliseconds the message lives; the queue default (14 days) when omitted. */
  timeToLiveMs?: number;
  /** Not visible to receivers before this time. */
  scheduledEnqueueTime?: Date;
}

/** A message as seen by a receiver or by peek. */
export interface BusMessage {
  body: Uint8Array;
  messageId: string;
  subject?: string;
  correlationId?: string;
  contentType?: string;
  applicationProperties: ApplicationProperties;
  /** Monotonic per queue (string to keep 64-bit values exact). */
  sequenceNumber: string;
  /** Deliveries so far, including the current one (1 on first delivery). */
  deliveryCount: number;
  enqueuedTime: Date;
  expiresAt: Date;
  scheduledEnqueueTime?: Date;
  deadLetterReason?: string;
  deadLetterErrorDescription?: string;
  /** Queue the message was dead-lettered from (its own queue for dead-letter subqueue messages). */
  deadLetterSource?: string;
}

/** A message received in peek-lock mode; settle it with the bus that received it. */
export interface ReceivedMessage extends BusMessage {
  /** Identifies this delivery's lock; settling with an old token fails with `LockLost`. */
  lockToken: string;
  lockedUntil: Date;
  /** Queue it was received from (with `subQueue`). */
  queue: string;
  subQueue?: SubQueue;
}

export type SubQueue = 'deadLetter';

export interface ReceiveOptions {
  /** Most messages returned (default 1). */
  maxMessages?: number;
  /** How long to wait for the first message when none is available (default 0: return at once). */
  maxWaitMs?: number;
  /** Receive from the queue's dead-letter subqueue. */
  subQueue?: SubQueue;
}

export interface PeekOptions {
  /** Most messages returned (default 100). */
  maxMessages?: number;
  /** Only messages with a sequence number at or above this. */
  fromSequenceNumber?: string;
  subQueue?: SubQueue;
}

export interface DeadLetterOptions {
  reason: string;
  description?: string;
  /** Application properties to set on the dead-lettered message. */
  propertiesToModify?: ApplicationProperties;
}

export interface QueueCounts {
  active: number;
  scheduled: number;
  deadLetter: number;
}

/** A size-limited batch for one queue (see {@link MessageBus.createBatch}). */
export interface MessageBatch {
  readonly queue: string;
  readonly count: number;
  readonly sizeInBytes: number;
  readonly maxSizeInBytes: number;
  /** Adds the message if it fits; false when the batch is full. Never throws for size. */
  tryAdd(message: OutgoingMessage): boolean;
}

export interface MessageBus {
  /**
   * Sends messages to a queue, all or none.
   * @throws BusError `QueueNotFound`, `MessageTooLarge` (one message over the limit), `Unavailable`.
   */
  send(queue: string, messages: OutgoingMessage[]): Promise<void>;
  /** Creates an empty batch whose size limit is the queue's. @throws BusError `QueueNotFound`. */
  createBatch(queue: string): Promise<MessageBatch>;
  /** Sends a batch made by {@link createBatch} of this bus. @throws BusError as `send`. */
  sendBatch(batch: MessageBatch): Promise<void>;
  /**
   * Receives up to `maxMessages` in peek-lock mode, oldest first; each delivery increments
   * `deliveryCount`. Returns [] when none arrive within `maxWaitMs`.
   * @throws BusError `QueueNotFound`, `Unavailable`.
   */
  receive(queue: string, options?: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Extends the lock by the queue's lock duration. @throws BusError `LockLost`. */
  renewLock(message: ReceivedMessage): Promise<Date>;
  /** Removes the message. @throws BusError `LockLost`. */
  complete(message: ReceivedMessage): Promise<void>;
  /**
   * Completes several messages received from this bus. Resolves with one entry per message, in
   * order: undefined when completed, else the BusError (e.g. `LockLost` for that message); one
   * message's failure never fails the others. The local bus completes them in one transaction;
   * Service Bus has no multi-message complete, so the Azure adapter settles them concurrently
   * (at most 16 at a time).
   *
   * The messages may come from different queues and subqueues (each is settled by its own lock).
   * The same delivery twice in one call completes once: the later entry is `LockLost`, as a
   * second `complete` would be. A malformed entry is `InvalidArgument` at its index.
   * @throws BusError `Unavailable` only when the bus cannot be reached at all (nothing was
   * completed); `InvalidArgument` when `messages` is not an array or the bus is closed.
   */
  completeMany(messages: readonly ReceivedMessage[]): Promise<Array<BusError | undefined>>;
  /**
   * Releases the lock so the message is delivered again; sets `propertiesToModify` on it.
   * At `maxDeliveryCount` deliveries the message moves to the dead-letter subqueue with
   * reason `MaxDeliveryCountExceeded` instead. @throws BusError `LockLost`.
   */
  abandon(message: ReceivedMessage, propertiesToModify?: ApplicationProperties): Promise<void>;
  /** Moves the message to the dead-letter subqueue. @throws BusError `LockLost`. */
  deadLetter(message: ReceivedMessage, options: DeadLetterOptions): Promise<void>;
  /** Browses without locking or counting deliveries. @throws BusError `QueueNotFound`. */
  peek(queue: string, options?: PeekOptions): Promise<BusMessage[]>;
  /** @throws BusError `QueueNotFound`, `Unavailable`. */
  counts(queue: string): Promise<QueueCounts>;
  /** Names of the queues this bus knows. */
  listQueues(): Promise<string[]>;
  /** Releases connections and timers; the bus is unusable afterwards. */
  close(): Promise<void>;
}

export type BusErrorCode =
  | 'QueueNotFound'
  | 'MessageTooLarge'
  | 'LockLost'
  | 'Unavailable'
  | 'Corrupt'
  | 'Unauthorized'
  | 'InvalidArgument';

/** The one error type of the bus port; `code` says what happened. */
export class BusError extends Error {
  override readonly name = 'BusError';
  constructor(
    readonly code: BusErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  /** Whether retrying the same call may succeed. */
  get retryable(): boolean {
    return this.code === 'Unavailable';
  }
}

export function isBusError(err: unknown, code?: BusErrorCode): err is BusError {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'BusError' &&
    (code === undefined || (err as { code?: unknown }).code === code)
  );
}
