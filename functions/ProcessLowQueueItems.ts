import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the low-priority work queue (`%QUEUE_LOW%`) to their targets. */
export const processLowQueueItems = processQueueItems('low');

registerQueueTrigger('ProcessLowQueueItems', 'low', processLowQueueItems);
