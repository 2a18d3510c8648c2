import type { MessageBatch, OutgoingMessage } from '../message-bus';
import { encodeMessage, type EncodedMessage } from './message-codec';

/**
 * A size-limited batch of the local bus. Messages are encoded (and validated) when added, so
 * that sending the batch only writes rows.
 */
export class LocalBatch implements MessageBatch {
  private readonly encoded: EncodedMessage[] = [];
  private size = 0;

  constructor(
    readonly queue: string,
    readonly maxSizeInBytes: number,
    /** The bus that made this batch; only it may send the batch. */
    readonly owner: object,
  ) {}

  get count(): number {
    return this.encoded.length;
  }

  get sizeInBytes(): number {
    return this.size;
  }

  /** The encoded messages, in the order added. */
  get messages(): readonly EncodedMessage[] {
    return this.encoded;
  }

  /** @throws BusError `InvalidArgument` for a malformed message (never for its size). */
  tryAdd(message: OutgoingMessage): boolean {
    const encoded = encodeMessage(message, this.encoded.length);
    if (this.size + encoded.size > this.maxSizeInBytes) return false;
    this.encoded.push(encoded);
    this.size += encoded.size;
    return true;
  }
}
