import type { MessageBus, ReceivedMessage } from '../bus/message-bus';
import { errorMessage } from '../model/errors';
import { busSettler } from '../process/bus-settler';
import type { ProcessQueueMessageService, ProcessResult } from '../process/process-queue-message-service';
import type { Logger } from '../telemetry/logger';

export interface QueueProcessorOptions {
  bus: MessageBus;
  queue: string;
  processor: ProcessQueueMessageService;
  log: Logger;
  /** Messages processed at once. Default 8. */
  concurrency?: number;
  /** How long one receive waits for messages, ms. Default 1 000. */
  receiveWaitMs?: number;
  /** Called after each message (progress display, tests). */
  onResult?: (result: ProcessResult, message: ReceivedMessage) => void;
}

/**
 * The local host's stand-in for a Service Bus trigger: receives from one work queue in peek-lock
 * mode and hands each message to the same {@link ProcessQueueMessageService} the Functions app
 * uses, with up to `concurrency` in flight. `stop()` stops receiving and waits for the messages in
 * flight; a message whose processing is cut short stays locked and is delivered again after its
 * lock expires, so nothing is lost.
 */
export class QueueProcessor {
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  /** Wakes the receive loop when a message in flight is done. */
  private slotFreed?: () => void;

  constructor(private readonly options: QueueProcessorOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Messages being processed right now. */
  get busy(): number {
    return this.inFlight.size;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async run(): Promise<void> {
    const { bus, queue, log } = this.options;
    const concurrency = this.options.concurrency ?? 8;
    while (this.running) {
      const free = concurrency - this.inFlight.size;
      if (free <= 0) {
        // Not Promise.race(inFlight): that adds a reaction to every message in flight on each
        // turn of this loop, O(concurrency) per message, all of them run when each settles.
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      let messages: ReceivedMessage[];
      try {
        messages = await bus.receive(queue, { maxMessages: free, maxWaitMs: this.options.receiveWaitMs ?? 1_000 });
      } catch (err) {
        log.error(`receive from ${queue} failed: ${errorMessage(err)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      for (const message of messages) this.track(this.handle(message));
      if (messages.length === 0) this.notifyIdle();
    }
  }

  private async handle(message: ReceivedMessage): Promise<void> {
    const { bus, processor, log, onResult } = this.options;
    try {
      const result = await processor.execute(message, busSettler(bus, message), this.options.queue);
      onResult?.(result, message);
    } catch (err) {
      // Settlement failed (lock lost, bus down): the broker delivers the message again.
      log.warn(`message ${message.messageId} on ${this.options.queue} not settled: ${errorMessage(err)}`);
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      const wake = this.slotFreed;
      this.slotFreed = undefined;
      wake?.();
    });
  }

  /** Resolves the next time a receive finds the queue empty with nothing in flight. */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    if (this.inFlight.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((w) => w());
  }
}
