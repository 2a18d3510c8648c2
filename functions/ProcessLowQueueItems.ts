import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the low-priority work queue (`%QUEUE_LOW%`) to their targets, a batch per invocation (batch trigger: `support/queue-trigger.ts`). */
export const processLowQueueItems = processQueueItems('low');

registerQueueTrigger('ProcessLowQueueItems', 'low', processLowQueueItems);
