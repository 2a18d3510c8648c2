import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the high-priority work queue (`%QUEUE_HIGH%`) to their targets, a batch per invocation (batch trigger: `support/queue-trigger.ts`). */
export const processHighQueueItems = processQueueItems('high');

registerQueueTrigger('ProcessHighQueueItems', 'high', processHighQueueItems);
