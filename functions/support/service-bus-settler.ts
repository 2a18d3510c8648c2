import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { types } from 'rhea';
import type { Reader as AmqpReader, Typed, Writer as AmqpWriter } from 'rhea/typings/types';
import type { ApplicationProperties, PropertyValue } from '../../src/bus/message-bus';
import type { MessageSettler } from '../../src/process/message-settler';

/** `google.protobuf.StringValue`, as the settlement gRPC client serializes it. */
export interface StringValueWire {
  value: string;
}

/**
 * The settlement actions the Service Bus extension hands to a trigger with `sdkBinding: true`
 * and `autoCompleteMessages: false` (`@azure/functions-extensions-servicebus` 0.2.0-preview,
 * gRPC to the host's Settlement service). Declared here, not imported: see service-bus-extension.ts.
 */
export interface ServiceBusSettlementActions {
  complete(message: ServiceBusReceivedMessage): Promise<void>;
  /** `propertiesToModify`: an AMQP map (see {@link encodePropertiesToModify}). */
  abandon(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array): Promise<void>;
  /**
   * The package declares reason and description as `string`, but its proto declares them as
   * `google.protobuf.StringValue`: a plain string fails to serialize ("deadletterReason: object
   * expected"), so they are passed in wire form.
   */
  deadletter(
    message: ServiceBusReceivedMessage,
    propertiesToModify?: Uint8Array,
    deadletterReason?: StringValueWire,
    deadletterErrorDescription?: StringValueWire,
  ): Promise<void>;
  renewMessageLock(message: ServiceBusReceivedMessage): Promise<void>;
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
 * The processor's {@link MessageSettler} on the extension's actions for one message. Error
 * properties travel as `propertiesToModify`; the dead-letter reason and description also go
 * into the broker's own `DeadLetterReason` / `DeadLetterErrorDescription`.
 */
export function serviceBusSettler(actions: ServiceBusSettlementActions, message: ServiceBusReceivedMessage): MessageSettler {
  return {
    complete: () => actions.complete(message),
    abandon: (properties) => actions.abandon(message, properties ? encodePropertiesToModify(properties) : undefined),
    deadLetter: (options) =>
      actions.deadletter(
        message,
        options.propertiesToModify ? encodePropertiesToModify(options.propertiesToModify) : undefined,
        { value: options.reason },
        options.description === undefined ? undefined : { value: options.description },
      ),
    renewLock: () => actions.renewMessageLock(message),
  };
}
