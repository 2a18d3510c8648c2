import {
  BusError,
  type BusMessage,
  type MessageBatch,
  type MessageBus,
  type OutgoingMessage,
  type QueueCounts,
  type ReceivedMessage,
} from '../../../../src/bus/message-bus';

/** Bytes a message takes in a batch: body, properties and a fixed framing overhead (as AMQP adds). */
export function encodedSize(message: OutgoingMessage): number {
  const body = typeof message.body === 'string' ? Buffer.byteLength(message.body, 'utf8') : message.body.byteLength;
  const properties = Buffer.byteLength(
    JSON.stringify([message.messageId, message.subject, message.correlationId, message.contentType, message.applicationProperties]),
    'utf8',
  );
  return body + properties + 32;
}

class InMemoryBatch implements MessageBatch {
  readonly messages: OutgoingMessage[] = [];
  sizeInBytes = 0;
  constructor(
    readonly queue: string,
    readonly maxSizeInBytes: number,
    readonly owner: InMemorySendBus,
  ) {}
  get count(): number {
    return this.messages.length;
  }
  tryAdd(message: OutgoingMessage): boolean {
    const size = encodedSize(message);
    if (this.sizeInBytes + size > this.maxSizeInBytes) return false;
    this.messages.push(message);
    this.sizeInBytes += size;
    return true;
  }
}

/**
 * The sending half of the {@link MessageBus} port, in memory, with the port's batch rules: a batch
 * refuses (false, no throw) what would exceed the queue's size limit, `send` rejects a single
 * message over the limit with `MessageTooLarge` and sends nothing, unknown queues are
 * `QueueNotFound`, sends are all-or-none. Receiving is not implemented (not needed by senders).
 */
export class InMemorySendBus implements MessageBus {
  readonly sent = new Map<string, OutgoingMessage[]>();
  /** Every successful send call: queue and number of messages. */
  readonly sends: Array<{ queue: string; count: number }> = [];
  /** When set, the next send fails with this error (then it is cleared). */
  failNextSend?: BusError;

  constructor(
    queues: readonly string[],
    readonly maxSizeInBytes: number = 262_144,
  ) {
    for (const queue of queues) this.sent.set(queue, []);
  }

  async send(queue: string, messages: OutgoingMessage[]): Promise<void> {
    this.requireQueue(queue);
    for (const message of messages) {
      if (encodedSize(message) > this.maxSizeInBytes) {
        throw new BusError('MessageTooLarge', `send on queue '${queue}' failed: a message exceeds ${this.maxSizeInBytes} bytes`);
      }
    }
    this.deliver(queue, messages);
  }

  async createBatch(queue: string): Promise<MessageBatch> {
    this.requireQueue(queue);
    return new InMemoryBatch(queue, this.maxSizeInBytes, this);
  }

  async sendBatch(batch: MessageBatch): Promise<void> {
    if (!(batch instanceof InMemoryBatch) || batch.owner !== this) throw new BusError('InvalidArgument', 'not a batch of this bus');
    this.deliver(batch.queue, batch.messages);
  }

  private deliver(queue: string, messages: OutgoingMessage[]): void {
    if (this.failNextSend) {
      const err = this.failNextSend;
      this.failNextSend = undefined;
      throw err;
    }
    this.sent.get(queue)?.push(...messages);
    this.sends.push({ queue, count: messages.length });
  }

  private requireQueue(queue: string): void {
    if (!this.sent.has(queue)) throw new BusError('QueueNotFound', `queue '${queue}' not found`);
  }

  receive(): Promise<ReceivedMessage[]> {
    return Promise.reject(new Error('InMemorySendBus: receive is not implemented'));
  }
  renewLock(): Promise<Date> {
    return Promise.reject(new Error('InMemorySendBus: renewLock is not implemented'));
  }
  complete(): Promise<void> {
    return Promise.reject(new Error('InMemorySendBus: complete is not implemented'));
  }
  completeMany(): Promise<Array<BusError | undefined>> {
    return Promise.reject(new Error('InMemorySendBus: completeMany is not implemented'));
  }
  abandon(): Promise<void> {
    return Promise.reject(new Error('InMemorySendBus: abandon is not implemented'));
  }
  deadLetter(): Promise<void> {
    return Promise.reject(new Error('InMemorySendBus: deadLetter is not implemented'));
  }
  peek(): Promise<BusMessage[]> {
    return Promise.reject(new Error('InMemorySendBus: peek is not implemented'));
  }
  async counts(queue: string): Promise<QueueCounts> {
    this.requireQueue(queue);
    return { active: this.sent.get(queue)?.length ?? 0, scheduled: 0, deadLetter: 0 };
  }
  async listQueues(): Promise<string[]> {
    return [...this.sent.keys()].sort();
  }
  async close(): Promise<void> {}
}
