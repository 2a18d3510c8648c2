import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the normal-priority work queue (`%QUEUE_NORMAL%`) to their targets. */
export const processNormalQueueItems = processQueueItems('normal');

registerQueueTrigger('ProcessNormalQueueItems', 'normal', processNormalQueueItems);
