import { app, type InvocationContext } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { errorProperties, safeErrorText } from '../../src/bus/message-properties';
import { systemClock, type Clock } from '../../src/platform/clock';
import { errorMessage } from '../../src/platform/errors';
import { DEFAULT_LOCK_RENEWAL_MS, type ProcessResult } from '../../src/process/process-queue-message-service';
import type { ReceivedItem } from '../../src/process/received-item';
import type { Runtime } from '../../src/runtime/runtime';
import { getRuntime } from '../runtime-instance';
import { abandonAll, deadLetterUndecodable, functionsBatchSettlement } from './batch-settlement';
import { reportBatch } from './batch-report';
import { earliestLockEnd } from './lock-budget';
import { keepLocks, type LockKeeper } from './lock-keeper';
// Registers the binding factory that builds this trigger's input.
import './service-bus-extension';
import type { ServiceBusBinding } from './service-bus-extension';
import { toBusMessage } from './service-bus-message';
import type { ServiceBusSettlementActions } from './service-bus-settler';
import { holdUntilCreated, STARTUP_HOLD_MS } from './startup-hold';
import { processWithinLocks } from './within-locks';
import type { Priority } from '../../src/platform/queue-topology';
import { TRIGGER_CONNECTION_SETTING } from '../../src/platform/settings';

/** App settings holding the work queue names, one per priority. */
const QUEUE_NAME_SETTINGS: Record<Priority, string> = {
  high: '%QUEUE_HIGH%',
  normal: '%QUEUE_NORMAL%',
  low: '%QUEUE_LOW%',
};

/** A lock known to end sooner than this after the invocation starts is renewed at once. */
export const LOCK_RENEWAL_MARGIN_MS = 15_000;

/** The trigger's input: what our binding factory (service-bus-extension.ts) returns. */
export type ServiceBusTriggerInput = ServiceBusBinding;

export type QueueItemsHandler = (trigger: unknown, context: InvocationContext) => Promise<void>;

/** Hosts (settlement clients) already warned about: the warning is logged once per process. */
const warnedNoRenewal = new WeakSet<ServiceBusSettlementActions>();

/**
 * The handler of one priority's batch trigger.
 *
 * 1. Messages whose binding data cannot be decoded are dead-lettered alone, with the reason.
 * 2. Every other message's lock is renewed from the first moment (lock-keeper.ts).
 * 3. The runtime is created and its configuration loaded; while that fails (storage, role
 *    assignments, configuration) the batch is held, locks renewed, and both retried with a
 *    backoff (startup-hold.ts), for up to {@link STARTUP_HOLD_MS}; only then are the messages
 *    abandoned with error properties and the invocation failed. Abandoning at once would let the host's batch loop, which
 *    receives again straight away, use up every delivery within seconds.
 * 4. The batch goes through `executeBatch`, which settles each message explicitly. On a host
 *    without lock renewal, in chunks that each start only within the locks (within-locks.ts).
 *
 * The invocation fails only when no message could be settled; a message whose settlement failed
 * on its own comes back when its lock expires.
 */
export function processQueueItems(priority: Priority, clock: Clock = systemClock): QueueItemsHandler {
  return async (trigger, context) => {
    const { messages, undecodable, actions } = asTriggerInput(trigger, context.functionName);
    if (undecodable.length > 0) {
      const errors = await deadLetterUndecodable(undecodable, actions, clock.now());
      undecodable.forEach((m, i) => {
        const outcome = errors[i] === undefined ? 'dead-lettered' : `not dead-lettered (${errorMessage(errors[i])})`;
        context.warn(`message ${m.position + 1} of the batch (lock ${m.lockToken ?? 'unknown'}) ${outcome}: ${m.error.message}`);
      });
    }
    if (messages.length === 0) return;
    const receivedAt = clock.now().getTime();
    const locks = keepLocks(messages, actions, {
      clock,
      intervalMs: DEFAULT_LOCK_RENEWAL_MS,
      marginMs: LOCK_RENEWAL_MARGIN_MS,
      onLost: (message, err) => context.warn(`message ${String(message.messageId)}: lock renewal failed: ${errorMessage(err)}`),
      onUnsupported: (err) => {
        if (warnedNoRenewal.has(actions)) return;
        warnedNoRenewal.add(actions);
        context.warn(`${err.message}; batches are processed in chunks that start only with half a lock left, the rest is released. Update the extension bundle.`);
      },
    });
    try {
      await locks.ready;
      const runtime = await createRuntimeHolding(messages, locks, receivedAt, clock, context);
      const queue = runtime.settings.queues.work[priority];
      const items = messages.map((message, i): ReceivedItem => ({ message: toBusMessage(message, queue), settler: locks.settlers[i] }));
      let results: ProcessResult[];
      if (!locks.unsupported) results = await runtime.processor.executeBatch(items, queue, functionsBatchSettlement);
      else {
        results = await processWithinLocks(items, messages, queue, (chunk, q, settlement) => runtime.processor.executeBatch(chunk, q, settlement), {
          clock,
          receivedAt,
          settlement: functionsBatchSettlement,
          onRelease: (count, lockEnd) => context.warn(`${count} of ${items.length} messages released unprocessed: the locks end at ${lockEnd.toISOString()} and cannot be renewed`),
        });
      }
      reportBatch(messages, results, context);
    } finally {
      locks.stop();
    }
  };
}

/** The runtime, retried while the batch is held (see step 3 above); abandons the batch when it never came. */
async function createRuntimeHolding(messages: readonly ServiceBusReceivedMessage[], locks: LockKeeper, receivedAt: number, clock: Clock, context: InvocationContext): Promise<Runtime> {
  const lockEnd = earliestLockEnd(messages, receivedAt);
  try {
    return await holdUntilCreated(readyRuntime, {
      clock,
      // Without renewal the hold ends while the locks still allow an abandon.
      deadline: () => (locks.unsupported ? Math.min(receivedAt + STARTUP_HOLD_MS, lockEnd - LOCK_RENEWAL_MARGIN_MS) : receivedAt + STARTUP_HOLD_MS),
      stillHeld: () => messages.some((_, i) => locks.isHeld(i)),
      onRetry: (err, attempt, delayMs) =>
        context.warn(`runtime not available (attempt ${attempt}): ${safeErrorText(errorMessage(err))}; ${messages.length} messages held, next attempt in ${Math.round(delayMs / 1000)} s`),
    });
  } catch (err) {
    const settlers = locks.settlers.filter((_, i) => locks.isHeld(i));
    const errors = await abandonAll(settlers, errorProperties(err, clock.now()));
    const failed = errors.filter((e) => e !== undefined).length;
    context.warn(`runtime not available after ${Math.round((clock.now().getTime() - receivedAt) / 1000)} s: ${settlers.length - failed} messages abandoned${failed > 0 ? `, ${failed} not (${errorMessage(errors.find((e) => e !== undefined))})` : ''}`);
    // The host records the invocation's exception: scrubbed, like every other error text.
    throw new Error(safeErrorText(errorMessage(err)));
  }
}

/**
 * The runtime with its configuration loaded: the configuration is read from the tables on first
 * use, and a failure there (storage, a 403 while role assignments propagate, an invalid
 * configuration) stops every message as much as a runtime that cannot be created. Inside the
 * processor it would make each message a retry copy and use up its attempts within minutes.
 */
async function readyRuntime(): Promise<Runtime> {
  const runtime = await getRuntime();
  await runtime.init.ensureInitialized();
  return runtime;
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

function asTriggerInput(trigger: unknown, functionName: string): ServiceBusBinding {
  const input = trigger as Partial<ServiceBusBinding> | null;
  const actions = input?.actions;
  if (!input || !Array.isArray(input.messages) || !actions || typeof actions.complete !== 'function' || typeof actions.abandon !== 'function') {
    throw new Error(`${functionName}: expected the Service Bus SDK binding's { messages, actions } (sdkBinding: true needs a recent extension bundle)`);
  }
  return { messages: input.messages, undecodable: input.undecodable ?? [], actions };
}
