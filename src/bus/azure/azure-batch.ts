import type { ServiceBusMessageBatch } from '@azure/service-bus';
import { BusError, type MessageBatch, type OutgoingMessage } from '../message-bus';
import { toBusError } from './error-mapping';
import { toServiceBusMessage } from './message-conversion';

/**
 * The port's {@link MessageBatch} over an SDK `ServiceBusMessageBatch`. The SDK batch encodes
 * each message as it is added and compares against the limit the broker announced on the sender
 * link, so `sizeInBytes` is the real wire size. The SDK object stays private to the adapter.
 */
export class AzureMessageBatch implements MessageBatch {
  readonly #sdkBatch: ServiceBusMessageBatch;
  readonly #owner: object;

  constructor(
    readonly queue: string,
    sdkBatch: ServiceBusMessageBatch,
    owner: object,
  ) {
    this.#sdkBatch = sdkBatch;
    this.#owner = owner;
  }

  get count(): number {
    return this.#sdkBatch.count;
  }

  get sizeInBytes(): number {
    return this.#sdkBatch.sizeInBytes;
  }

  get maxSizeInBytes(): number {
    return this.#sdkBatch.maxSizeInBytes;
  }

  /**
   * @returns false when the message does not fit.
   * @throws BusError `InvalidArgument` when the SDK rejects the message itself (e.g. a message id
   * over 128 characters): such a message would never fit any batch.
   */
  tryAdd(message: OutgoingMessage): boolean {
    try {
      return this.#sdkBatch.tryAddMessage(toServiceBusMessage(message));
    } catch (err) {
      const translated = toBusError(err, { operation: 'add to batch', queue: this.queue });
      throw new BusError('InvalidArgument', translated.message);
    }
  }

  /**
   * The SDK batch, when this batch was made by `owner`.
   * @throws BusError `InvalidArgument` for a batch of another bus.
   */
  static unwrap(batch: MessageBatch, owner: object): ServiceBusMessageBatch {
    if (!(batch instanceof AzureMessageBatch) || batch.#owner !== owner) {
      throw new BusError('InvalidArgument', `sendBatch on queue '${batch.queue}' failed: the batch was not created by this bus`);
    }
    return batch.#sdkBatch;
  }
}
