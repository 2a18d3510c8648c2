import type { DeadLetterOptions as SdkDeadLetter, ServiceBusMessageBatch, ServiceBusReceiver, ServiceBusSender } from '@azure/service-bus';
import Long from 'long';
import {
  BusError,
  isBusError,
  type ApplicationProperties,
  type BusMessage,
  type DeadLetterOptions,
  type MessageBatch,
  type MessageBus,
  type OutgoingMessage,
  type PeekOptions,
  type PropertyValue,
  type QueueCounts,
  type ReceiveOptions,
  type ReceivedMessage,
  type SubQueue,
} from '../message-bus';
import { AzureMessageBatch } from './azure-batch';
import { createAzureClients, type AzureClients, type AzureRetryOptions, type AzureServiceBusConnection } from './azure-connection';
import { translateErrors, type ErrorContext } from './error-mapping';
import { HeldLocks, type HeldLock } from './held-locks';
import { fromReceivedMessage, fromServiceBusMessage, toServiceBusMessage } from './message-conversion';
import { adminInventory, peekInventory, type QueueInventory } from './queue-inventory';
import { settleConcurrently } from './settle-concurrently';
import { systemClock, type Clock } from '../../platform/clock';

export type AzureServiceBusOptions = AzureServiceBusConnection & {
  retry?: AzureRetryOptions;
  /**
   * Shortest wait of `receive`, in ms, even when the caller asks for 0: a receive is a network
   * round trip (link credit out, messages back), so "return at once" would miss waiting messages.
   * Default 500.
   */
  minReceiveWaitMs?: number;
  /** Queue names `listQueues` returns when the namespace cannot be listed (the emulator). Default none. */
  knownQueues?: readonly string[];
  /** Clock for forgetting expired locks. Default the system clock. */
  clock?: Pick<Clock, 'now'>;
};

const DEFAULT_PEEK_COUNT = 100;
const SEQUENCE_NUMBER = /^\d{1,20}$/;

/** The SDK types the description as required; it omits a missing one on the wire, as the port wants. */
type SdkDeadLetterOptions = SdkDeadLetter & Record<string, PropertyValue>;

/**
 * {@link MessageBus} on Azure Service Bus (`@azure/service-bus` 7.9). Owns its client; senders and
 * receivers are opened on first use per queue (and per dead-letter subqueue) and kept.
 */
export class AzureServiceBus implements MessageBus {
  readonly #clients: AzureClients;
  readonly #inventory: QueueInventory;
  readonly #senders = new Map<string, ServiceBusSender>();
  readonly #receivers = new Map<string, ServiceBusReceiver>();
  readonly #locks: HeldLocks;
  readonly #minReceiveWaitMs: number;
  #closed = false;

  /** Connects lazily: nothing goes over the network before the first operation. @throws ConfigError */
  constructor(options: AzureServiceBusOptions) {
    this.#clients = createAzureClients(options, options.retry);
    this.#locks = new HeldLocks(options.clock ?? systemClock);
    this.#minReceiveWaitMs = options.minReceiveWaitMs ?? 500;
    this.#inventory = this.#clients.emulator
      ? peekInventory((queue, subQueue, from, max) => this.receiverFor(queue, subQueue).peekMessages(max, { fromSequenceNumber: from }), options.knownQueues ?? [])
      : adminInventory(this.#clients.admin);
  }

  /** Host name of the namespace (no secret). */
  get namespace(): string {
    return this.#clients.namespace;
  }

  async send(queue: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.run({ operation: 'send', queue }, async () => {
      const sender = this.senderFor(queue);
      const batches = await this.packIntoBatches(queue, sender, messages);
      // Service Bus makes one batch atomic; across batches a resend is safe because ids are
      // deterministic and the queues detect duplicates.
      for (const batch of batches) await sender.sendMessages(batch);
    });
  }

  /** Every message is packed before anything is sent, so a message over the limit sends nothing. */
  private async packIntoBatches(queue: string, sender: ServiceBusSender, messages: OutgoingMessage[]): Promise<ServiceBusMessageBatch[]> {
    const batches = [await sender.createMessageBatch()];
    for (const [index, message] of messages.entries()) {
      const sdkMessage = toServiceBusMessage(message);
      if (batches[batches.length - 1].tryAddMessage(sdkMessage)) continue;
      const next = await sender.createMessageBatch();
      if (!next.tryAddMessage(sdkMessage)) {
        const size = typeof message.body === 'string' ? Buffer.byteLength(message.body, 'utf8') : message.body.byteLength;
        const id = message.messageId === undefined ? '' : ` (messageId ${message.messageId})`;
        throw new BusError(
          'MessageTooLarge',
          `send on queue '${queue}' failed: message ${index}${id} with a body of ${size} bytes exceeds the limit of ${next.maxSizeInBytes} bytes`,
        );
      }
      batches.push(next);
    }
    return batches;
  }

  async createBatch(queue: string): Promise<MessageBatch> {
    return this.run({ operation: 'createBatch', queue }, async () => {
      const sdkBatch = await this.senderFor(queue).createMessageBatch();
      return new AzureMessageBatch(queue, sdkBatch, this);
    });
  }

  async sendBatch(batch: MessageBatch): Promise<void> {
    const sdkBatch = AzureMessageBatch.unwrap(batch, this);
    if (sdkBatch.count === 0) return;
    await this.run({ operation: 'sendBatch', queue: batch.queue }, () => this.senderFor(batch.queue).sendMessages(sdkBatch));
  }

  async receive(queue: string, options: ReceiveOptions = {}): Promise<ReceivedMessage[]> {
    const maxMessages = options.maxMessages ?? 1;
    if (!Number.isInteger(maxMessages) || maxMessages < 1) {
      throw new BusError('InvalidArgument', `receive on queue '${queue}' failed: maxMessages must be a positive integer, got ${maxMessages}`);
    }
    const maxWaitTimeInMs = Math.max(options.maxWaitMs ?? 0, this.#minReceiveWaitMs);
    const location = { queue, subQueue: options.subQueue };
    return this.run({ operation: 'receive', queue }, async () => {
      const receiver = this.receiverFor(queue, options.subQueue);
      const messages = await receiver.receiveMessages(maxMessages, { maxWaitTimeInMs });
      this.#locks.forgetExpired();
      return messages.map((message) => {
        const received = fromReceivedMessage(message, location);
        this.#locks.add(received.lockToken, { message, receiver });
        return received;
      });
    });
  }

  async renewLock(message: ReceivedMessage): Promise<Date> {
    return this.settle('renewLock', message, false, (held) => held.receiver.renewMessageLock(held.message));
  }

  async complete(message: ReceivedMessage): Promise<void> {
    await this.settle('complete', message, true, (held) => held.receiver.completeMessage(held.message));
  }

  /** Service Bus has no multi-message complete: one `complete` per message, 16 in flight. */
  async completeMany(messages: readonly ReceivedMessage[]): Promise<Array<BusError | undefined>> {
    this.throwIfClosed({ operation: 'completeMany' });
    return settleConcurrently(messages, (message) => this.complete(message));
  }

  async abandon(message: ReceivedMessage, propertiesToModify?: ApplicationProperties): Promise<void> {
    await this.settle('abandon', message, true, (held) => held.receiver.abandonMessage(held.message, propertiesToModify));
  }

  async deadLetter(message: ReceivedMessage, options: DeadLetterOptions): Promise<void> {
    const settleOptions: Record<string, PropertyValue> = { ...options.propertiesToModify, deadLetterReason: options.reason };
    if (options.description !== undefined) settleOptions.deadLetterErrorDescription = options.description;
    await this.settle('deadLetter', message, true, (held) => held.receiver.deadLetterMessage(held.message, settleOptions as SdkDeadLetterOptions));
  }

  /** Runs a lock operation; the delivery is forgotten once settled or once its lock is known lost. */
  private async settle<T>(operation: string, message: ReceivedMessage, settles: boolean, act: (held: HeldLock) => Promise<T>): Promise<T> {
    const context = { operation, queue: message.queue };
    const held = this.#locks.get(message.lockToken);
    if (held === undefined) {
      this.throwIfClosed(context);
      throw new BusError('LockLost', `${operation} on queue '${message.queue}' failed: the lock is not held by this bus (settled already, or expired)`);
    }
    try {
      const result = await this.run(context, () => act(held));
      if (settles) this.#locks.delete(message.lockToken);
      return result;
    } catch (err) {
      if (isBusError(err, 'LockLost')) this.#locks.delete(message.lockToken);
      throw err;
    }
  }

  async peek(queue: string, options: PeekOptions = {}): Promise<BusMessage[]> {
    const from = options.fromSequenceNumber ?? '1';
    if (!SEQUENCE_NUMBER.test(from)) {
      throw new BusError('InvalidArgument', `peek on queue '${queue}' failed: fromSequenceNumber must be a decimal integer, got '${from}'`);
    }
    const location = { queue, subQueue: options.subQueue };
    return this.run({ operation: 'peek', queue }, async () => {
      // Always pass the start: without it the SDK continues after the last peek of any caller.
      const messages = await this.receiverFor(queue, options.subQueue).peekMessages(options.maxMessages ?? DEFAULT_PEEK_COUNT, {
        fromSequenceNumber: Long.fromString(from),
      });
      return messages.map((message) => fromServiceBusMessage(message, location));
    });
  }

  async counts(queue: string): Promise<QueueCounts> {
    return this.run({ operation: 'counts', queue }, () => this.#inventory.counts(queue));
  }

  async listQueues(): Promise<string[]> {
    return this.run({ operation: 'listQueues' }, () => this.#inventory.listQueues());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const links = [...this.#senders.values(), ...this.#receivers.values()];
    this.#senders.clear();
    this.#receivers.clear();
    this.#locks.clear();
    await Promise.allSettled(links.map((link) => link.close()));
    await this.#clients.client.close();
  }

  private async run<T>(context: ErrorContext, operation: () => Promise<T>): Promise<T> {
    this.throwIfClosed(context);
    return translateErrors(context, operation);
  }

  private throwIfClosed(context: ErrorContext): void {
    if (this.#closed) throw new BusError('InvalidArgument', `${context.operation} failed: the bus is closed`);
  }

  private senderFor(queue: string): ServiceBusSender {
    let sender = this.#senders.get(queue);
    if (sender === undefined || sender.isClosed) {
      sender = this.#clients.client.createSender(queue);
      this.#senders.set(queue, sender);
    }
    return sender;
  }

  private receiverFor(queue: string, subQueue: SubQueue | undefined): ServiceBusReceiver {
    const key = subQueue === undefined ? queue : `${queue}/$${subQueue}`;
    let receiver = this.#receivers.get(key);
    if (receiver === undefined || receiver.isClosed) {
      receiver = this.#clients.client.createReceiver(queue, {
        receiveMode: 'peekLock',
        skipParsingBodyAsJson: true,
        // Locks are renewed by the caller (renewLock), as the port says: a lock the SDK kept alive
        // on its own would outlive a stuck or crashed handler and delay redelivery.
        maxAutoLockRenewalDurationInMs: 0,
        ...(subQueue === undefined ? {} : { subQueueType: subQueue }),
      });
      this.#receivers.set(key, receiver);
    }
    return receiver;
  }
}
