import type { ApplicationProperties, BusMessage } from '../../../../src/bus/message-bus';
import { attemptOf } from '../../../../src/process/batch/attempts';
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
  /** The processing attempt (`Attempt` of a retry copy, 1 for an original, plus broker redeliveries). */
  attempt: number;
  /** As received: on a redelivery they carry the previous failure's `ErrorMessage`, `ErrorType`, `ErrorAt`. */
  applicationProperties: ApplicationProperties;
  result: ProcessResult;
  /**
   * How long the fake clock was moved forward for this round's messages to become visible, in ms
   * (their retry copies' backoff), followed by any sleeps requested while the round ran.
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
  /** The clock moves made since the last round (waiting for scheduled retry copies). */
  private waited: number[] = [];

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
    const done = processor.executeBatch(
      messages.map((message) => ({ message, settler: busSettler(bus, message) })),
      queue,
      { completeMany: (items) => bus.completeMany(items.map((i) => i.message as typeof messages[number])) },
    );
    let settled = false;
    void done.finally(() => (settled = true)).catch(() => undefined);
    // Time moves only while the batch waits on the clock, and then only to the next due sleep.
    const deadline = Date.now() + 20_000;
    while (!settled) {
      if (this.clock.pendingSleeps > 0) {
        await this.clock.advanceToNextSleep();
      } else if (Date.now() > deadline) {
        throw new Error(`a batch of ${messages.length} neither settled nor waited on the clock within 20 s`);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    const results = await done;
    const roundSleeps = [...this.waited, ...this.clock.sleeps.slice(sleepsBefore)];
    this.waited = [];
    const deliveries = messages.map((message, i): Delivery => {
      const props = message.applicationProperties;
      return {
        queue,
        messageId: message.messageId,
        sourceKey: String(props.SourceKey ?? ''),
        jobName: String(props.JobName ?? results[i].jobName ?? ''),
        attempt: attemptOf(message),
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
      if (!got) got = await this.advanceToNextScheduled();
    }
    return this.deliveries.slice(start);
  }

  /**
   * Moves the fake clock to the earliest scheduled message of the work queues (a retry copy),
   * firing what is due on the way; false when none is scheduled.
   */
  private async advanceToNextScheduled(): Promise<boolean> {
    const now = this.clock.now().getTime();
    let next = Infinity;
    for (const queue of Object.values(this.queues.work)) {
      for (const m of await this.runtime.bus.peek(queue, { maxMessages: 100_000 })) {
        const at = m.scheduledEnqueueTime?.getTime();
        if (at !== undefined && at > now) next = Math.min(next, at);
      }
    }
    if (next === Infinity) return false;
    this.waited.push(next - now);
    await this.clock.advance(next - now);
    return true;
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

/** `Attempt² · 1000` for attempts 2..n: when each retry copy becomes visible after the failure before it. */
export function expectedBackoffs(lastDelivery: number): number[] {
  return Array.from({ length: Math.max(0, lastDelivery - 1) }, (_, i) => (i + 2) ** 2 * 1000);
}

