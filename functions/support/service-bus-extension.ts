import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { errorMessage, PermanentError } from '../../src/platform/errors';
import { BINDING_SOURCE, decodeBindingData, LOCK_TOKEN_BYTES, lockTokenFromBytes } from './binding-data';
import { hostSettlementClient } from './settlement-client';
import type { ServiceBusSettlementActions } from './service-bus-settler';

/**
 * Turns the host's SDK binding data into the trigger's input for Service Bus triggers declared
 * with `sdkBinding: true`: our decoder (binding-data.ts) and our client of the host's
 * Settlement service (settlement-client.ts). Nothing of `@azure/functions-extensions-servicebus`
 * is used: @azure/functions asks the one `ResourceFactoryResolver` of
 * `@azure/functions-extensions-base` (its documented extension point) for a client of the
 * binding's source, and this module registers that factory.
 *
 * A message that cannot be decoded does not fail the batch: a factory that throws fails the
 * invocation before the handler runs, and the host then abandons every message of the batch.
 * It is handed over in `undecodable`, with its lock token when the bytes have one, so that the
 * trigger dead-letters it alone.
 */
export interface ServiceBusBinding {
  /** The decoded messages, in the batch's order (one for `cardinality: 'one'`). */
  messages: ServiceBusReceivedMessage[];
  /** The messages that could not be decoded. */
  undecodable: UndecodableMessage[];
  actions: ServiceBusSettlementActions;
}

/** A message of the batch whose binding data could not be decoded. */
export interface UndecodableMessage {
  /** Its position in the batch the host sent (0-based). */
  position: number;
  /** Undefined when the data is too short to hold one: the message then cannot be settled. */
  lockToken?: string;
  error: PermanentError;
}

/** What @azure/functions hands a factory: one binding (`cardinality: 'one'`) or a collection. */
interface ModelBindingData {
  content?: Uint8Array | null;
  source?: string | null;
}

const resolver = ResourceFactoryResolver.getInstance();
if (resolver.hasResourceFactory(BINDING_SOURCE)) {
  throw new Error(`a factory for ${BINDING_SOURCE} is already registered (is @azure/functions-extensions-servicebus loaded? this app settles through its own client)`);
}
resolver.registerResourceFactory(BINDING_SOURCE, (data: ModelBindingData | ModelBindingData[]) => toBinding(Array.isArray(data) ? data : [data], hostSettlementClient));

/** The binding of a batch's data; `actions` is called at the first invocation, not at load (the host's client reads the command line). */
function toBinding(data: readonly ModelBindingData[], actions: () => ServiceBusSettlementActions): ServiceBusBinding {
  const messages: ServiceBusReceivedMessage[] = [];
  const undecodable: UndecodableMessage[] = [];
  data.forEach((binding, position) => {
    const content = binding.content ?? new Uint8Array();
    try {
      messages.push(decodeBindingData(content));
    } catch (err) {
      const lockToken = content.byteLength >= LOCK_TOKEN_BYTES ? lockTokenFromBytes(content.subarray(0, LOCK_TOKEN_BYTES)) : undefined;
      const error = new PermanentError(`Service Bus binding data of message ${position + 1} of ${data.length} cannot be decoded (${content.byteLength} bytes): ${errorMessage(err)}`, {
        cause: err,
      });
      undecodable.push({ position, lockToken, error });
    }
  });
  return { messages, undecodable, actions: actions() };
}
