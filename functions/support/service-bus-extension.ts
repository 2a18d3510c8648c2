import { ResourceFactoryResolver } from '@azure/functions-extensions-base';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { BINDING_SOURCE, decodeBindingData } from './binding-data';
import type { ServiceBusSettlementActions } from './service-bus-settler';

/**
 * Turns the host's SDK binding data into `{ messages, actions }` for Service Bus triggers
 * declared with `sdkBinding: true`, with our own decoder (binding-data.ts) and the settlement
 * actions of `@azure/functions-extensions-servicebus`.
 *
 * Why not the extension's factory: 0.2.0-preview (the only version the registry serves) decodes
 * the message from the wrong offset and loses the delivery count and TTL. Its factory is
 * registered under `AzureServiceBusReceivedMessage` only when none is registered yet; ours takes
 * that place. The extension exports nothing, so its factory is captured while it registers and
 * used only for its `actions` (the gRPC client of the host's Settlement service): called with an
 * empty collection, it decodes nothing and returns `{ messages: [], actions }`.
 *
 * The extension is loaded with `require`, not `import`: its typings point at TypeScript sources
 * that do not compile under our settings (TS7016 in its gRPC helper), and we use none of its
 * types (see service-bus-settler.ts).
 */
export interface ServiceBusBinding {
  /** Always an array: one message for `cardinality: 'one'`, the batch for `'many'`. */
  messages: ServiceBusReceivedMessage[];
  actions: ServiceBusSettlementActions;
}

/** What @azure/functions hands a factory: one binding (`cardinality: 'one'`) or a collection. */
interface ModelBindingData {
  content?: Uint8Array | null;
  contentType?: string | null;
  source?: string | null;
  version?: string | null;
}

type Factory = (data: ModelBindingData | ModelBindingData[]) => unknown;

const resolver = ResourceFactoryResolver.getInstance();
if (resolver.hasResourceFactory(BINDING_SOURCE)) {
  throw new Error(`a factory for ${BINDING_SOURCE} is already registered: functions/support/service-bus-extension.ts must be loaded before @azure/functions-extensions-servicebus`);
}
const extensionFactory = captureExtensionFactory();
resolver.registerResourceFactory(BINDING_SOURCE, (data: ModelBindingData | ModelBindingData[]): ServiceBusBinding => {
  const bindings = Array.isArray(data) ? data : [data];
  return { messages: bindings.map(decodeOne), actions: extensionActions() };
});

function decodeOne(data: ModelBindingData): ServiceBusReceivedMessage {
  if (!data.content) throw new Error(`${BINDING_SOURCE} binding data has no content`);
  return decodeBindingData(data.content);
}

/**
 * Created on first use, not at load: the actions read the host's gRPC address from the worker's
 * command line (`--host`, `--port`), and build one client for the process.
 */
function extensionActions(): ServiceBusSettlementActions {
  const { actions } = extensionFactory([]) as { actions?: ServiceBusSettlementActions };
  if (!actions) throw new Error('@azure/functions-extensions-servicebus returned no settlement actions');
  return actions;
}

function captureExtensionFactory(): Factory {
  let captured: Factory | undefined;
  const register = resolver.registerResourceFactory;
  resolver.registerResourceFactory = (type, factory) => {
    if (type === BINDING_SOURCE) captured = factory as Factory;
    else register.call(resolver, type, factory);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@azure/functions-extensions-servicebus');
  } finally {
    resolver.registerResourceFactory = register;
  }
  if (!captured) throw new Error(`@azure/functions-extensions-servicebus registered no ${BINDING_SOURCE} factory (a second copy of @azure/functions-extensions-base?)`);
  return captured;
}
