import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the normal-priority work queue (`%QUEUE_NORMAL%`) to their targets, a batch per invocation (batch trigger: `support/queue-trigger.ts`). */
export const processNormalQueueItems = processQueueItems('normal');

registerQueueTrigger('ProcessNormalQueueItems', 'normal', processNormalQueueItems);
