/**
 * The queue semantics behind {@link FakeServiceBus}, as Service Bus documents them: FIFO by
 * sequence number, peek-lock with a lock duration, delivery count, max delivery count, TTL
 * capped by the queue default (expired messages are dead-lettered with `TTLExpiredException`),
 * scheduled messages, duplicate detection by message id within a window, dead-letter subqueue.
 * Real time (`Date.now`); no AMQP here.
 */

/** An AMQP message as rhea encodes and decodes it (a local view: rhea's bundled typings disagree). */
export interface AmqpMessage {
  message_id?: unknown;
  correlation_id?: unknown;
  reply_to?: string;
  ttl?: number;
  delivery_count?: number;
  application_properties?: Record<string, unknown>;
  message_annotations?: Record<string, unknown>;
  body?: unknown;
  [field: string]: unknown;
}

export interface FakeQueueOptions {
  /** Default 60,000. */
  lockDurationMs?: number;
  /** Default 10. */
  maxDeliveryCount?: number;
  /** Default 14 days. */
  defaultTimeToLiveMs?: number;
  /** Default 600,000. */
  duplicateDetectionWindowMs?: number;
}

export interface Stored {
  seq: number;
  message: AmqpMessage;
  enqueuedAt: number;
  availableAt: number;
  expiresAt: number;
  /** Deliveries so far (a delivery is counted when it is made). */
  deliveries: number;
  lock?: { token: string; until: number };
}

export interface Lock {
  queue: FakeQueue;
  list: Stored[];
  stored: Stored;
  token: string;
}

const FOURTEEN_DAYS = 14 * 24 * 60 * 60 * 1000;

export class FakeQueue {
  readonly active: Stored[] = [];
  readonly deadLetter: Stored[] = [];
  private readonly seen = new Map<string, number>();
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number;
  readonly defaultTimeToLiveMs: number;
  readonly duplicateDetectionWindowMs: number;

  constructor(
    readonly name: string,
    options: FakeQueueOptions,
    private readonly nextSeq: () => number,
  ) {
    this.lockDurationMs = options.lockDurationMs ?? 60_000;
    this.maxDeliveryCount = options.maxDeliveryCount ?? 10;
    this.defaultTimeToLiveMs = options.defaultTimeToLiveMs ?? FOURTEEN_DAYS;
    this.duplicateDetectionWindowMs = options.duplicateDetectionWindowMs ?? 600_000;
  }

  /** Enqueues unless the message id was seen within the duplicate window. */
  enqueue(message: AmqpMessage, now: number): void {
    const id = message.message_id === undefined ? undefined : String(message.message_id);
    if (id !== undefined) {
      const seenAt = this.seen.get(id);
      if (seenAt !== undefined && now - seenAt < this.duplicateDetectionWindowMs) return;
      this.seen.set(id, now);
    }
    const ttl = Math.min(message.ttl ?? this.defaultTimeToLiveMs, this.defaultTimeToLiveMs);
    const scheduled = message.message_annotations?.['x-opt-scheduled-enqueue-time'];
    const availableAt = scheduled instanceof Date ? scheduled.getTime() : now;
    this.active.push({ seq: this.nextSeq(), message: { ...message, ttl }, enqueuedAt: availableAt, availableAt, expiresAt: availableAt + ttl, deliveries: 0 });
  }

  /** Applies time: expired messages and exhausted expired locks go to the dead-letter subqueue. */
  tick(now: number): void {
    for (const stored of this.deadLetter) if (stored.lock && stored.lock.until <= now) stored.lock = undefined;
    for (const stored of [...this.active]) {
      const lockExpired = stored.lock !== undefined && stored.lock.until <= now;
      if (lockExpired) stored.lock = undefined;
      if (stored.expiresAt <= now && stored.lock === undefined) this.moveToDeadLetter(stored, 'TTLExpiredException', 'The message expired and was dead lettered.');
      else if (lockExpired && stored.deliveries >= this.maxDeliveryCount) this.exhausted(stored);
    }
  }

  /** The next message a receiver of `list` may lock, if any. */
  next(list: Stored[], now: number): Stored | undefined {
    this.tick(now);
    return list.find((m) => m.availableAt <= now && m.lock === undefined);
  }

  lock(list: Stored[], stored: Stored, token: string, now: number): Lock {
    stored.lock = { token, until: now + this.lockDurationMs };
    stored.deliveries += 1;
    return { queue: this, list, stored, token };
  }

  holds(lock: Lock, now: number): boolean {
    const current = lock.stored.lock;
    return current?.token === lock.token && current.until > now && lock.list.includes(lock.stored);
  }

  complete(lock: Lock): void {
    lock.list.splice(lock.list.indexOf(lock.stored), 1);
  }

  abandon(lock: Lock, properties: Record<string, unknown>): void {
    lock.stored.lock = undefined;
    Object.assign((lock.stored.message.application_properties ??= {}), properties);
    if (lock.list === this.active && lock.stored.deliveries >= this.maxDeliveryCount) this.exhausted(lock.stored);
  }

  deadLetterLocked(lock: Lock, info: Record<string, unknown>): void {
    lock.stored.lock = undefined;
    lock.list.splice(lock.list.indexOf(lock.stored), 1);
    Object.assign((lock.stored.message.application_properties ??= {}), info);
    this.deadLetter.push(lock.stored);
  }

  private exhausted(stored: Stored): void {
    this.moveToDeadLetter(stored, 'MaxDeliveryCountExceeded', `Message could not be consumed after ${this.maxDeliveryCount} delivery attempts.`);
  }

  private moveToDeadLetter(stored: Stored, reason: string, description: string): void {
    this.active.splice(this.active.indexOf(stored), 1);
    stored.lock = undefined;
    Object.assign((stored.message.application_properties ??= {}), { DeadLetterReason: reason, DeadLetterErrorDescription: description });
    this.deadLetter.push(stored);
  }
}
