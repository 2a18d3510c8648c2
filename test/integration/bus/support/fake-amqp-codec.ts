import { message } from 'rhea';
import type { AmqpMessage, Stored } from './fake-queue-store';

/** AMQP encoding helpers of the fake broker (rhea's codec, typed locally). */

interface Outcome {
  described(): unknown;
}

export const amqp = message as unknown as {
  decode(bytes: Buffer): AmqpMessage;
  encode(message: AmqpMessage): Buffer;
  accepted(): Outcome;
  rejected(fields: { error: { condition: string; description: string } }): Outcome;
};

/** The message as delivered or peeked, with the broker's annotations. */
export function wireMessage(stored: Stored, now: number, deliveryCount: number): AmqpMessage {
  return {
    ...stored.message,
    delivery_count: deliveryCount,
    message_annotations: {
      ...stored.message.message_annotations,
      'x-opt-sequence-number': stored.seq,
      'x-opt-enqueued-time': new Date(stored.enqueuedAt),
      ...(stored.lock && stored.lock.until > now ? { 'x-opt-locked-until': new Date(stored.lock.until) } : {}),
      'x-opt-message-state': stored.availableAt > now ? 2 : 0,
    },
  };
}

export function unbatch(batch: AmqpMessage): AmqpMessage[] {
  const sections = (batch.body as { content: Buffer | Buffer[] }).content;
  return (Array.isArray(sections) ? sections : [sections]).map((section) => amqp.decode(section));
}

/** .NET GUID byte order, which the SDK applies to delivery tags to form lock tokens. */
export function reorderGuid(bytes: Buffer): Buffer {
  return Buffer.from([bytes[3], bytes[2], bytes[1], bytes[0], bytes[5], bytes[4], bytes[7], bytes[6], ...bytes.subarray(8)]);
}

export function longValue(value: unknown): bigint {
  return Buffer.isBuffer(value) ? value.readBigInt64BE(0) : BigInt(value as number);
}
