import { processQueueItems, registerQueueTrigger } from './support/queue-trigger';

/** Applies the messages of the high-priority work queue (`%QUEUE_HIGH%`) to their targets. */
export const processHighQueueItems = processQueueItems('high');

registerQueueTrigger('ProcessHighQueueItems', 'high', processHighQueueItems);
