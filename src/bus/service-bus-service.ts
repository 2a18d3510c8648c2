import { PermanentError } from '../platform/errors';
import type { QueueMessage } from '../model/queue-message';
import { isBusError, type ApplicationProperties, type MessageBatch, type MessageBus, type OutgoingMessage } from './message-bus';
import { toOutgoingMessage } from './message-properties';
import type { QueueNames, Priority } from '../platform/queue-topology';

/** Most messages in one batch (docs/architecture.md, Detection): a batch is sent when it holds this many. */
const MAX_MESSAGES_PER_BATCH = 200;

export interface ServiceBusServiceOptions {
  bus: MessageBus;
  queues: QueueNames;
  /** Messages per batch before it is sent. Default {@link MAX_MESSAGES_PER_BATCH} (200). */
  maxMessagesPerBatch?: number;
}

/**
 * Sends queue messages: batched per priority work queue during detection, single sends for side
 * queues (transitive, ignored) and response messages. Calls are serialized, so concurrent
 * callers cannot interleave a batch being sent with one being filled.
 */
export class ServiceBusService {
  readonly #bus: MessageBus;
  readonly #queues: QueueNames;
  readonly #maxPerBatch: number;
  readonly #open = new Map<string, MessageBatch>();
  readonly #sent = new Map<string, number>();
  #tail: Promise<unknown> = Promise.resolve();
  /** Calls queued on `#tail` and not yet settled. */
  #busy = 0;

  constructor(options: ServiceBusServiceOptions) {
    this.#bus = options.bus;
    this.#queues = options.queues;
    this.#maxPerBatch = options.maxMessagesPerBatch ?? MAX_MESSAGES_PER_BATCH;
    if (!Number.isInteger(this.#maxPerBatch) || this.#maxPerBatch < 1) {
      throw new RangeError(`maxMessagesPerBatch: expected a positive integer, got ${this.#maxPerBatch}`);
    }
  }

  /**
   * Adds the message to the open batch of the priority's work queue. The batch is sent first when
   * it already holds {@link MAX_MESSAGES_PER_BATCH} messages or the message does not fit; the
   * message then starts a new batch.
   * @throws PermanentError when the message alone exceeds the queue's size limit (never dropped silently).
   * @throws BusError from the bus when a send fails (the batch stays open: nothing is lost).
   */
  addMessageOrSend(message: QueueMessage, priority: Priority): Promise<void> {
    // Fast path, once per detected change: nothing queued before this call and room in the open
    // batch, so adding now is what the serialized path would do, without its promise chain.
    const queue = this.#queues.work[priority];
    const open = queue === undefined || this.#busy > 0 ? undefined : this.#open.get(queue);
    if (open !== undefined && open.count < this.#maxPerBatch) {
      let outgoing: OutgoingMessage;
      try {
        outgoing = toOutgoingMessage(message);
        if (open.tryAdd(outgoing)) return Promise.resolve();
      } catch (err) {
        return Promise.reject(err);
      }
      return this.serialized(() => this.add(message, outgoing, priority));
    }
    return this.serialized(() => this.add(message, undefined, priority));
  }

  /** The serialized path of {@link addMessageOrSend}; `converted` when the fast path made it. */
  private async add(message: QueueMessage, converted: OutgoingMessage | undefined, priority: Priority): Promise<void> {
    const queue = this.#queues.work[priority];
    if (queue === undefined) throw new RangeError(`priority: expected high, normal or low, got ${JSON.stringify(priority)}`);
    const outgoing = converted ?? toOutgoingMessage(message);
    let batch = await this.openBatch(queue);
    if (batch.count >= this.#maxPerBatch) batch = await this.sendOpenBatch(queue, batch);
    if (batch.tryAdd(outgoing)) return;
    if (batch.count > 0) {
      batch = await this.sendOpenBatch(queue, batch);
      if (batch.tryAdd(outgoing)) return;
    }
    throw tooLarge(message, outgoing, queue, batch.maxSizeInBytes);
  }

  /** Sends every open batch (all priorities). */
  flushBatch(): Promise<void> {
    return this.serialized(async () => {
      for (const [queue, batch] of [...this.#open]) {
        if (batch.count > 0) await this.sendAndCount(queue, batch);
        this.#open.delete(queue);
      }
    });
  }

  /**
   * Sends one message now (side queues, responses); `extraProperties` are added to its
   * application properties (e.g. the error properties). `messageId` replaces the change's own id
   * (copies to side queues, see `sideQueueCopyId`).
   * @throws PermanentError when the message exceeds the queue's size limit.
   */
  sendMessage(queue: string, message: QueueMessage, extraProperties?: ApplicationProperties, messageId?: string): Promise<void> {
    return this.serialized(async () => {
      const outgoing = { ...toOutgoingMessage(message, extraProperties), ...(messageId === undefined ? {} : { messageId }) };
      try {
        await this.#bus.send(queue, [outgoing]);
      } catch (err) {
        if (isBusError(err, 'MessageTooLarge')) throw tooLarge(message, outgoing, queue, undefined, err);
        throw err;
      }
      this.count(queue, 1);
    });
  }

  /**
   * Sends ready-made messages to one queue (copies for retries and side queues, response
   * messages of a batch) in as few size-limited batches as they fit, in order.
   * @throws PermanentError when one message alone exceeds the queue's size limit (nothing of
   * that batch is sent); BusError from the bus when a send fails.
   */
  sendOutgoing(queue: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.serialized(async () => {
      let batch = await this.#bus.createBatch(queue);
      for (const outgoing of messages) {
        if (batch.tryAdd(outgoing)) continue;
        if (batch.count > 0) {
          await this.sendAndCount(queue, batch);
          batch = await this.#bus.createBatch(queue);
          if (batch.tryAdd(outgoing)) continue;
        }
        throw new PermanentError(`a message for queue '${queue}' (id ${outgoing.messageId ?? 'unset'}) is ${bodySize(outgoing)} bytes, over the queue's size limit of ${batch.maxSizeInBytes} bytes`);
      }
      if (batch.count > 0) await this.sendAndCount(queue, batch);
    });
  }

  /** Messages sent so far, per queue (for run logs). */
  sentCounts(): Record<string, number> {
    return Object.fromEntries(this.#sent);
  }

  /** Messages waiting in open batches, per queue (not yet sent). */
  pendingCounts(): Record<string, number> {
    return Object.fromEntries([...this.#open].map(([queue, batch]) => [queue, batch.count]));
  }

  private async openBatch(queue: string): Promise<MessageBatch> {
    let batch = this.#open.get(queue);
    if (batch === undefined) {
      batch = await this.#bus.createBatch(queue);
      this.#open.set(queue, batch);
    }
    return batch;
  }

  /** Sends the batch and opens the next one; on failure the full batch stays open. */
  private async sendOpenBatch(queue: string, batch: MessageBatch): Promise<MessageBatch> {
    await this.sendAndCount(queue, batch);
    this.#open.delete(queue);
    return this.openBatch(queue);
  }

  private async sendAndCount(queue: string, batch: MessageBatch): Promise<void> {
    await this.#bus.sendBatch(batch);
    this.count(queue, batch.count);
  }

  private count(queue: string, n: number): void {
    this.#sent.set(queue, (this.#sent.get(queue) ?? 0) + n);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    this.#busy++;
    const result = this.#tail.then(work);
    const settled = () => {
      this.#busy--;
    };
    this.#tail = result.then(settled, settled);
    return result;
  }
}

function bodySize(message: OutgoingMessage): number {
  return typeof message.body === 'string' ? Buffer.byteLength(message.body, 'utf8') : message.body.byteLength;
}

function tooLarge(message: QueueMessage, outgoing: OutgoingMessage, queue: string, limit: number | undefined, cause?: unknown): PermanentError {
  const size = bodySize(outgoing);
  const limitText = limit === undefined ? "the queue's size limit" : `the queue's size limit of ${limit} bytes`;
  return new PermanentError(
    `message of job '${message.jobName}' for source key '${message.sourceKey}' is too large for queue '${queue}': ` +
      `its body is ${size} bytes, over ${limitText}`,
    { cause, details: { jobName: message.jobName, sourceKey: message.sourceKey, queue, sizeInBytes: size } },
  );
}
