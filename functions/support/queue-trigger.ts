import { app, type InvocationContext } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { errorProperties, safeErrorText } from '../../src/bus/message-properties';
import { systemClock, type Clock } from '../../src/model/clock';
import { errorMessage } from '../../src/model/errors';
import type { Priority } from '../../src/model/job';
import type { Runtime } from '../../src/runtime/runtime';
import { getRuntime } from '../runtime-instance';
import './service-bus-extension';
import { toBusMessage } from './service-bus-message';
import { serviceBusSettler, type ServiceBusSettlementActions } from './service-bus-settler';

/** App setting (connection string) or prefix (`…__fullyQualifiedNamespace`) of the triggers' connection. */
export const SERVICE_BUS_CONNECTION = 'ServiceBusConnection';

/** App settings holding the work queue names, one per priority. */
export const QUEUE_NAME_SETTINGS: Record<Priority, string> = {
  high: '%QUEUE_HIGH%',
  normal: '%QUEUE_NORMAL%',
  low: '%QUEUE_LOW%',
};

/** What the extension passes to an SDK-bound trigger: the message(s) and their settlement actions. */
export interface ServiceBusTriggerInput {
  messages: ServiceBusReceivedMessage | ServiceBusReceivedMessage[];
  actions: ServiceBusSettlementActions;
}

export type QueueItemsHandler = (trigger: unknown, context: InvocationContext) => Promise<void>;

/**
 * The handler of one priority's Service Bus trigger: each message goes through the shared
 * `ProcessQueueMessageService`, which renews the lock and settles it explicitly through the
 * extension's actions (the trigger never auto-completes). When the runtime cannot be created,
 * the message is abandoned with error properties and the invocation fails.
 */
export function processQueueItems(priority: Priority, clock: Pick<Clock, 'now'> = systemClock): QueueItemsHandler {
  return async (trigger, context) => {
    const { messages, actions } = asTriggerInput(trigger, context.functionName);
    let runtime: Runtime;
    try {
      runtime = await getRuntime();
    } catch (err) {
      const properties = errorProperties(err, clock.now());
      for (const message of messages) {
        await serviceBusSettler(actions, message)
          .abandon(properties)
          .catch((abandonError) => context.warn(`message ${String(message.messageId)} not abandoned: ${errorMessage(abandonError)}`));
      }
      throw err;
    }
    const queue = runtime.settings.queues.work[priority];
    for (const message of messages) {
      const result = await runtime.processor.execute(toBusMessage(message, queue), serviceBusSettler(actions, message));
      const line = `message ${String(message.messageId)} (job ${result.jobName ?? 'unknown'}): ${result.outcome}, ${result.disposition}`;
      if (result.outcome === 'Failed') context.warn(`${line}: ${safeErrorText(result.error ?? '')}`);
      else context.log(line);
    }
  };
}

/** Registers the trigger of one priority's work queue. */
export function registerQueueTrigger(name: string, priority: Priority, handler: QueueItemsHandler): void {
  app.serviceBusQueue(name, {
    connection: SERVICE_BUS_CONNECTION,
    queueName: QUEUE_NAME_SETTINGS[priority],
    cardinality: 'one',
    sdkBinding: true,
    autoCompleteMessages: false,
    handler,
  });
}

function asTriggerInput(trigger: unknown, functionName: string): { messages: ServiceBusReceivedMessage[]; actions: ServiceBusSettlementActions } {
  const input = trigger as Partial<ServiceBusTriggerInput> | null;
  const actions = input?.actions;
  if (!input || input.messages === undefined || !actions || typeof actions.complete !== 'function' || typeof actions.abandon !== 'function') {
    throw new Error(
      `${functionName}: expected the Service Bus SDK binding's { messages, actions } (sdkBinding: true needs @azure/functions-extensions-servicebus and a recent extension bundle)`,
    );
  }
  return { messages: Array.isArray(input.messages) ? input.messages : [input.messages], actions };
}
