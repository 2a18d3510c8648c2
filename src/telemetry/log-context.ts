import type { BusMessage } from '../bus/message-bus';
import type { QueueMessage } from '../model/queue-message';

/**
 * Log context of one change, the same at detection and at the target: the correlation id is
 * created when the change is serialized, travels in the body and as the broker's
 * `correlationId`, and is copied into response messages. No field values (they may be personal).
 */
export function messageLogContext(message: Pick<QueueMessage, 'correlationId' | 'jobName' | 'sourceKey' | 'action' | 'changeTracker'>): Record<string, string> {
  return {
    correlationId: message.correlationId,
    job: message.jobName,
    sourceKey: message.sourceKey,
    action: message.action,
    changeTracker: message.changeTracker,
  };
}

/**
 * Log context of a received broker message, usable before (or without) a parsable body: the
 * correlation id comes from the broker property.
 */
export function receivedLogContext(received: Pick<BusMessage, 'correlationId' | 'messageId' | 'deliveryCount'>, queue: string): Record<string, string | number> {
  return {
    ...(received.correlationId ? { correlationId: received.correlationId } : {}),
    messageId: received.messageId,
    queue,
    deliveryCount: received.deliveryCount,
  };
}
