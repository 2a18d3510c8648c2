import type { ApplicationProperties, BusMessage } from '../../../../src/bus/message-bus';
import { busSettler } from '../../../../src/process/bus-settler';
import type { ProcessResult } from '../../../../src/process/process-queue-message-service';
import type { Runtime, RuntimeOptions } from '../../../../src/runtime/runtime';
import { SteppingClock } from './stepping-clock';
import { FaultInjection, faultInjectingRegistry } from '../../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../../support/sync-fixture';

/** One delivery of one message and what the processor made of it. */
export interface Delivery {
  queue: string;
  messageId: string;
  sourceKey: string;
  jobName: string;
  deliveryCount: number;
  /** As received: on a redelivery they carry the previous failure's `ErrorMessage`, `ErrorType`, `ErrorAt`. */
  applicationProperties: ApplicationProperties;
  result: ProcessResult;
  /**
   * Fake-clock sleeps requested while this delivery's round ran, in ms: with one message per
   * round, exactly this delivery's backoff.
   */
  roundSleeps: number[];
}

/**
 * Delivers the messages of a runtime on a fake clock, the way the queue processors would, and
 * records every delivery. The fake clock moves only while every message in flight waits on it,
 * and then straight to the next sleep that is due, so backoff and `Retry-After` waits cost no real
 * time and no message sees more time pass than it asked for.
 */
export class MessageDriver {
  readonly deliveries: Delivery[] = [];

  constructor(
    readonly runtime: Runtime,
    readonly clock: SteppingClock,
  ) {}

  get queues() {
    return this.runtime.settings.queues;
  }

  /**
   * Receives up to `maxMessages` from `queue` and processes them concurrently, as a processor
   * with that concurrency would, until every one is settled. Returns [] when the queue is empty.
   */
  async deliverRound(queue: string, maxMessages = 1): Promise<Delivery[]> {
    const { bus, processor } = this.runtime;
    const messages = await bus.receive(queue, { maxMessages });
    if (messages.length === 0) return [];
    const sleepsBefore = this.clock.sleeps.length;
    let settled = 0;
    const running = messages.map((message) => {
      const done = processor.execute(message, busSettler(bus, message));
      void done.finally(() => settled++).catch(() => undefined);
      return done;
    });
    // Time moves only when every unsettled message waits on the clock, and then only to the next due sleep.
    const deadline = Date.now() + 20_000;
    while (settled < messages.length) {
      if (this.clock.pendingSleeps >= messages.length - settled) {
        await this.clock.advanceToNextSleep();
      } else if (Date.now() > deadline) {
        throw new Error(`${messages.length - settled} messages neither settled nor waited on the clock within 20 s`);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    const results = await Promise.all(running);
    const roundSleeps = this.clock.sleeps.slice(sleepsBefore);
    const deliveries = messages.map((message, i): Delivery => {
      const props = message.applicationProperties;
      return {
        queue,
        messageId: message.messageId,
        sourceKey: String(props.SourceKey ?? ''),
        jobName: String(props.JobName ?? results[i].jobName ?? ''),
        deliveryCount: message.deliveryCount,
        applicationProperties: { ...props },
        result: results[i],
        roundSleeps,
      };
    });
    this.deliveries.push(...deliveries);
    return deliveries;
  }

  /**
   * Delivers from every work queue (high, normal, low), `maxMessages` at a time, until all are
   * empty. `afterRound` runs after each round (e.g. to end a fault).
   */
  async processAll(options: { maxMessages?: number; afterRound?: (round: Delivery[]) => void | Promise<void>; maxDeliveries?: number } = {}): Promise<Delivery[]> {
    const start = this.deliveries.length;
    const maxDeliveries = options.maxDeliveries ?? 100_000;
    for (let got = true; got; ) {
      got = false;
      for (const queue of Object.values(this.queues.work)) {
        const round = await this.deliverRound(queue, options.maxMessages);
        if (round.length === 0) continue;
        got = true;
        await options.afterRound?.(round);
        if (this.deliveries.length - start > maxDeliveries) throw new Error(`more than ${maxDeliveries} deliveries: a message loops`);
      }
    }
    return this.deliveries.slice(start);
  }

  /** Every delivery of a source key's messages (of one job, when given), in order. */
  deliveriesOf(sourceKey: string, jobName?: string): Delivery[] {
    return this.deliveries.filter((d) => d.sourceKey === sourceKey && (jobName === undefined || d.jobName === jobName));
  }

  /** The dead-letter subqueue of a work queue, as peeked (nothing is received). */
  deadLetters(queue: string): Promise<BusMessage[]> {
    return this.runtime.bus.peek(queue, { subQueue: 'deadLetter', maxMessages: 100_000 });
  }
}

/** The sync fixture (CRM/ERP SQLite + runtime on the local bus and Azurite) on a fake clock, with fault-injecting connectors. */
export class FaultRig extends MessageDriver {
  private constructor(
    readonly f: SyncFixture,
    clock: SteppingClock,
    readonly faults: FaultInjection,
  ) {
    super(f.runtime, clock);
  }

  static async start(options: Partial<RuntimeOptions> = {}): Promise<FaultRig> {
    const clock = new SteppingClock('2026-03-01T00:00:00Z');
    const faults = new FaultInjection();
    const f = await createSyncFixture({ clock, registry: faultInjectingRegistry(faults), ...options });
    await f.runtime.init.ensureInitialized();
    return new FaultRig(f, clock, faults);
  }

  close(): Promise<void> {
    return this.f.close();
  }
}

/** Outcome and disposition of each delivery, e.g. `Failed/abandoned`. */
export function outcomes(deliveries: readonly Delivery[]): string[] {
  return deliveries.map((d) => `${d.result.outcome}/${d.result.disposition}`);
}

/** `DeliveryCount² · 1000` for deliveries 2..n: the backoff schedule the processor should follow. */
export function expectedBackoffs(lastDelivery: number): number[] {
  return Array.from({ length: Math.max(0, lastDelivery - 1) }, (_, i) => (i + 2) ** 2 * 1000);
}

