import type { MessageBus, BusErrorCode, QueueCounts } from '../../../src/bus/message-bus';

/** Control over the bus's clock, for adapters that take an injected one (the local bus). */
interface FakeClockControl {
  /** The bus's current time. */
  now(): Date;
  /** Moves the bus's time forward. */
  advance(ms: number): void | Promise<void>;
}

/** Queue settings a case needs; an adapter creates its fresh queue with them. */
export interface ContractQueueOptions {
  lockDurationMs?: number;
  maxDeliveryCount?: number;
  defaultTimeToLiveMs?: number;
  duplicateDetectionWindowMs?: number;
}

/** What an adapter's test hands to {@link runMessageBusContract}. */
export interface MessageBusFixture {
  bus: MessageBus;
  /**
   * Creates (or declares) a fresh, empty queue and returns its name; `suffix` helps to tell
   * queues apart in failures. Options not given take the queue defaults of docs/architecture.md: lock
   * 60 s, max delivery count 10, TTL 14 days, dead-lettering on expiration, duplicate
   * detection on with a 10-minute window, 256 KiB message size limit.
   */
  queue(suffix: string, options?: ContractQueueOptions): Promise<string>;
  /** The bus's fake clock: time-dependent cases advance it instead of waiting. */
  clock?: FakeClockControl;
  /**
   * @deprecated Not read: how time passes is chosen by `runMessageBusContract(..., { time })`
   * ('clock' | 'real' | 'skip'), since it must be known before the fixture exists.
   */
  realTime?: boolean;
  /** Deletes what the fixture created and closes the bus. */
  cleanup(): Promise<void>;
}

/** What the case files use: the fixture made once per suite, plus time helpers. */
export interface ContractContext {
  bus(): MessageBus;
  queue(suffix: string, options?: ContractQueueOptions): Promise<string>;
  /** The bus's time (the fake clock's, or the real one). */
  now(): Date;
  /** Lets `ms` of bus time pass: advances the fake clock, or sleeps in real time. */
  elapse(ms: number): Promise<void>;
  /** `it` for cases that need time to pass; `it.skip` when the fixture allows neither. */
  timeIt: jest.It;
}

export const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the rejection's BusError code (fails when the promise resolves). */
export async function busErrorCode(promise: Promise<unknown>): Promise<BusErrorCode> {
  try {
    await promise;
  } catch (err) {
    expect((err as { name?: string }).name).toBe('BusError');
    return (err as { code: BusErrorCode }).code;
  }
  throw new Error('expected a BusError, but the call succeeded');
}

/**
 * Asserts counts, retrying for a few seconds: Service Bus runtime counts lag behind the
 * operations; the local bus matches on the first read.
 */
export async function expectCounts(bus: MessageBus, queue: string, expected: QueueCounts): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const counts = await bus.counts(queue);
    if (Date.now() > deadline || (counts.active === expected.active && counts.scheduled === expected.scheduled && counts.deadLetter === expected.deadLetter)) {
      expect(counts).toEqual(expected);
      return;
    }
    await sleep(200);
  }
}
