import { types } from 'rhea';
import type { Reader as AmqpReader, Typed, Writer as AmqpWriter } from 'rhea/typings/types';
import type { ApplicationProperties, PropertyValue } from '../../src/bus/message-bus';
import type { MessageSettler } from '../../src/process/message-settler';

/** What the host's Settlement service is known to offer for renewing message locks. */
export type RenewalSupport = 'unknown' | 'supported' | 'unsupported';

/** The dead-letter reason and description, and properties to set on the dead-lettered message. */
export interface DeadLetterRequest {
  /** An AMQP map (see {@link encodePropertiesToModify}). */
  propertiesToModify?: Uint8Array;
  reason: string;
  description?: string;
}

/**
 * Settlement of the messages of a Service Bus trigger with `autoCompleteMessages: false`, by
 * lock token, through the Functions host (its Settlement gRPC service, settlement-client.ts).
 * The host settles only messages of an invocation still running: after the invocation returns
 * every call for its lock tokens fails.
 */
export interface ServiceBusSettlementActions {
  /** @throws TransientError naming the lock and the host's answer: the lock is lost (expired, settled, its invocation returned), the broker refused, or the host did not answer. */
  complete(lockToken: string): Promise<void>;
  /**
   * Releases the message for redelivery at once (one more delivery), setting the properties.
   * @throws TransientError as {@link complete}.
   */
  abandon(lockToken: string, propertiesToModify?: Uint8Array): Promise<void>;
  /** @throws TransientError as {@link complete}. */
  deadLetter(lockToken: string, request: DeadLetterRequest): Promise<void>;
  /**
   * Extends the lock by the queue's lock duration.
   * @throws RenewalUnsupportedError when the host has no `RenewMessageLock` (learnt from its first
   *   answer; later calls fail at once without asking again), TransientError as {@link complete}.
   */
  renewMessageLock(lockToken: string): Promise<void>;
  /** What the host's answers showed so far about `RenewMessageLock`. */
  readonly renewalSupport: RenewalSupport;
}

/** rhea's Writer and Reader exist at runtime but are missing from its `types` typings. */
const amqp = types as typeof types & {
  Writer: new () => AmqpWriter;
  Reader: new (buffer: Buffer) => AmqpReader;
};

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/**
 * The host's form of `propertiesToModify`: an AMQP map32 of string keys to AMQP values (as the
 * Service Bus extension decodes it into the .NET `IDictionary<string, object>`). Numbers become
 * int (32-bit), long (other safe integers) or double; null stays null.
 */
export function encodePropertiesToModify(properties: ApplicationProperties): Uint8Array {
  const wrapped: Record<string, Typed> = {};
  for (const [name, value] of Object.entries(properties)) wrapped[name] = wrapValue(value);
  const writer = new amqp.Writer();
  writer.write(types.wrap_map(wrapped));
  return new Uint8Array(writer.toBuffer());
}

/** Reads bytes made by {@link encodePropertiesToModify} (tests, diagnostics). */
export function decodePropertiesToModify(bytes: Uint8Array): Record<string, unknown> {
  const typed = new amqp.Reader(Buffer.from(bytes)).read();
  if (!types.is_map(typed)) throw new Error(`propertiesToModify: expected an AMQP map, got ${typed.type.name}`);
  return types.unwrap(typed) as Record<string, unknown>;
}

function wrapValue(value: PropertyValue): Typed {
  if (value === null) return types.wrap(null);
  if (typeof value === 'string') return types.wrap_string(value);
  if (typeof value === 'boolean') return types.wrap_boolean(value);
  if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) return types.wrap_int(value);
  if (Number.isSafeInteger(value)) return types.wrap_long(value);
  return types.wrap_double(value);
}

/**
 * The processor's {@link MessageSettler} for one message, by its lock token. Error properties
 * travel as `propertiesToModify`; the dead-letter reason and description also go into the
 * broker's own `DeadLetterReason` / `DeadLetterErrorDescription`.
 */
export function serviceBusSettler(actions: ServiceBusSettlementActions, lockToken: string): MessageSettler {
  return {
    complete: () => actions.complete(lockToken),
    abandon: (properties) => actions.abandon(lockToken, properties ? encodePropertiesToModify(properties) : undefined),
    deadLetter: (options) =>
      actions.deadLetter(lockToken, {
        propertiesToModify: options.propertiesToModify ? encodePropertiesToModify(options.propertiesToModify) : undefined,
        reason: options.reason,
        description: options.description,
      }),
    renewLock: () => actions.renewMessageLock(lockToken),
  };
}
