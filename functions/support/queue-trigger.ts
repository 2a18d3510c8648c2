import { app, type InvocationContext } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { errorProperties, safeErrorText } from '../../src/bus/message-properties';
import { systemClock, type Clock } from '../../src/platform/clock';
import { errorMessage } from '../../src/platform/errors';
import { DEFAULT_LOCK_RENEWAL_MS, type ProcessResult } from '../../src/process/process-queue-message-service';
import type { ReceivedItem } from '../../src/process/received-item';
import type { Runtime } from '../../src/runtime/runtime';
import { getRuntime } from '../runtime-instance';
import { abandonAll, functionsBatchSettlement } from './batch-settlement';
import { keepLocks, type LockKeeper } from './lock-keeper';
import './service-bus-extension';
import { toBusMessage } from './service-bus-message';
import type { ServiceBusSettlementActions } from './service-bus-settler';
import type { Priority } from '../../src/platform/queue-topology';
import { TRIGGER_CONNECTION_SETTING } from '../../src/platform/settings';

/** App settings holding the work queue names, one per priority. */
export const QUEUE_NAME_SETTINGS: Record<Priority, string> = {
  high: '%QUEUE_HIGH%',
  normal: '%QUEUE_NORMAL%',
  low: '%QUEUE_LOW%',
};

/** A lock known to end sooner than this after the invocation starts is renewed at once. */
export const LOCK_RENEWAL_MARGIN_MS = 15_000;

/** What the SDK binding passes to a trigger: the message(s) and their settlement actions. */
export interface ServiceBusTriggerInput {
  messages: ServiceBusReceivedMessage | ServiceBusReceivedMessage[];
  actions: ServiceBusSettlementActions;
}

export type QueueItemsHandler = (trigger: unknown, context: InvocationContext) => Promise<void>;

/**
 * The handler of one priority's batch trigger. Every message's lock is renewed from the first
 * moment (see lock-keeper.ts: the trigger owns the invocation's one renewal loop), then the batch
 * goes through `ProcessQueueMessageService.executeBatch`, which settles each message explicitly
 * (the trigger never auto-completes). The invocation fails only when no message could be
 * settled, so that the host abandons them; a message whose settlement failed on its own comes
 * back when its lock expires. When the runtime cannot be created, every message is abandoned
 * with error properties and the invocation fails.
 */
export function processQueueItems(priority: Priority, clock: Clock = systemClock): QueueItemsHandler {
  return async (trigger, context) => {
    const { messages, actions } = asTriggerInput(trigger, context.functionName);
    if (messages.length === 0) return;
    const locks = keepLocks(messages, actions, {
      clock,
      intervalMs: DEFAULT_LOCK_RENEWAL_MS,
      marginMs: LOCK_RENEWAL_MARGIN_MS,
      onLost: (message, err) => context.warn(`message ${String(message.messageId)}: lock renewal failed: ${errorMessage(err)}`),
    });
    try {
      let runtime: Runtime;
      try {
        runtime = await getRuntime();
      } catch (err) {
        await abandonOnStartupFailure(messages, locks, err, clock, context);
        throw err;
      }
      const queue = runtime.settings.queues.work[priority];
      const items = messages.map((message, i): ReceivedItem => ({ message: toBusMessage(message, queue), settler: locks.settlers[i] }));
      const results = await runtime.processor.executeBatch(items, queue, functionsBatchSettlement);
      report(messages, results, context);
    } finally {
      locks.stop();
    }
  };
}

/** One line per failed or unsettled message and one for the batch; throws when nothing was settled. */
function report(messages: readonly ServiceBusReceivedMessage[], results: readonly ProcessResult[], context: InvocationContext): void {
  const counts = new Map<string, number>();
  results.forEach((result, i) => {
    const key = `${result.outcome}/${result.disposition}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (result.outcome !== 'Failed' && result.settleError === undefined) return;
    let line = `message ${String(messages[i].messageId)} (job ${result.jobName ?? 'unknown'}): ${result.outcome}, ${result.disposition}`;
    if (result.error !== undefined) line += `: ${safeErrorText(result.error)}`;
    if (result.settleError !== undefined) line += ` (not settled: ${result.settleError})`;
    context.warn(line);
  });
  const unsettled = results.filter((result) => result.settleError !== undefined);
  context.log(`${results.length} messages: ${[...counts].map(([key, n]) => `${n} ${key}`).join(', ')}${unsettled.length > 0 ? `; ${unsettled.length} not settled` : ''}`);
  if (results.length > 0 && unsettled.length === results.length) {
    throw new Error(`none of the ${results.length} messages could be settled: ${unsettled[0].settleError}`);
  }
}

async function abandonOnStartupFailure(messages: readonly ServiceBusReceivedMessage[], locks: LockKeeper, err: unknown, clock: Clock, context: InvocationContext): Promise<void> {
  const errors = await abandonAll(locks.settlers, errorProperties(err, clock.now()));
  errors.forEach((abandonError, i) => {
    if (abandonError !== undefined) context.warn(`message ${String(messages[i].messageId)} not abandoned: ${errorMessage(abandonError)}`);
  });
}

/** Registers the batch trigger of one priority's work queue (batch sizes: host.json). */
export function registerQueueTrigger(name: string, priority: Priority, handler: QueueItemsHandler): void {
  app.serviceBusQueue(name, {
    connection: TRIGGER_CONNECTION_SETTING,
    queueName: QUEUE_NAME_SETTINGS[priority],
    cardinality: 'many',
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
