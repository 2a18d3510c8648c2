import type { ServiceBusAdministrationClient, ServiceBusReceivedMessage } from '@azure/service-bus';
import Long from 'long';
import type { QueueCounts, SubQueue } from '../message-bus';

/** Message counts and queue names of a namespace. */
export interface QueueInventory {
  counts(queue: string): Promise<QueueCounts>;
  listQueues(): Promise<string[]>;
}

/** From the administration (ATOM over HTTPS) API: exact broker counts, any queue size. */
export function adminInventory(admin: ServiceBusAdministrationClient): QueueInventory {
  return {
    async counts(queue) {
      const properties = await admin.getQueueRuntimeProperties(queue);
      return {
        active: properties.activeMessageCount,
        scheduled: properties.scheduledMessageCount,
        deadLetter: properties.deadLetterMessageCount,
      };
    },
    async listQueues() {
      const names: string[] = [];
      for await (const queue of admin.listQueues()) names.push(queue.name);
      return names.sort();
    },
  };
}

/** Reads one page of messages at or above `fromSequenceNumber` without locking them. */
export type PeekPage = (queue: string, subQueue: SubQueue | undefined, fromSequenceNumber: Long, max: number) => Promise<ServiceBusReceivedMessage[]>;

/** Messages read per peek while counting. */
const PEEK_PAGE_SIZE = 250;

async function countByPeeking(
  peekPage: PeekPage,
  queue: string,
  subQueue: SubQueue | undefined,
  count: (message: ServiceBusReceivedMessage) => void,
): Promise<void> {
  let from = Long.ONE;
  for (;;) {
    const page = await peekPage(queue, subQueue, from, PEEK_PAGE_SIZE);
    if (page.length === 0) return;
    for (const message of page) count(message);
    const last = page[page.length - 1].sequenceNumber;
    if (last === undefined) return;
    from = Long.fromValue(last).add(1);
  }
}

/**
 * For the official emulator, whose administration endpoint this SDK cannot reach: counts by
 * browsing every message (fine for development-sized queues), and the queue names the bus was
 * configured with (the emulator's config file defines them; it cannot be listed).
 */
export function peekInventory(peekPage: PeekPage, knownQueues: readonly string[]): QueueInventory {
  return {
    async counts(queue) {
      const counts: QueueCounts = { active: 0, scheduled: 0, deadLetter: 0 };
      await countByPeeking(peekPage, queue, undefined, (message) => {
        if (message.state === 'scheduled') counts.scheduled += 1;
        else counts.active += 1;
      });
      await countByPeeking(peekPage, queue, 'deadLetter', () => {
        counts.deadLetter += 1;
      });
      return counts;
    },
    async listQueues() {
      return [...knownQueues].sort();
    },
  };
}
