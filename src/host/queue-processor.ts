import type { MessageBus, ReceivedMessage } from '../bus/message-bus';
import { errorMessage } from '../platform/errors';
import { busSettler } from '../process/bus-settler';
import type { ProcessQueueMessageService, ProcessResult } from '../process/process-queue-message-service';
import type { BatchSettlement, ReceivedItem } from '../process/received-item';
import type { Logger } from '../telemetry/logger';

/** Most messages handed to the processor as one batch. */
const DEFAULT_MAX_BATCH_SIZE = 256;
/** How long a receive that found fewer than a full batch waits for more, ms. */
const DEFAULT_BATCH_WAIT_MS = 5;
/**
 * Body bytes in flight per processor before it waits. Bounds memory when records are large: 2,048
 * messages of 60 KB would hold 120 MB of bodies (and their parsed copies); typical ~1 KB messages
 * never reach it.
 */
const DEFAULT_MAX_BYTES_IN_FLIGHT = 16 * 1024 * 1024;

export interface QueueProcessorOptions {
  bus: MessageBus;
  queue: string;
  processor: ProcessQueueMessageService;
  log: Logger;
  /** Messages in flight at once (over all batches). Default 512. */
  concurrency?: number;
  /** Most messages per batch. Default {@link DEFAULT_MAX_BATCH_SIZE}. */
  maxBatchSize?: number;
  /**
   * No batch is received while the bodies in flight hold this many bytes or more (so at most this
   * plus one batch). Default {@link DEFAULT_MAX_BYTES_IN_FLIGHT}.
   */
  maxBytesInFlight?: number;
  /** When a receive returns fewer than a batch, wait this long for more before processing, ms. Default {@link DEFAULT_BATCH_WAIT_MS}. */
  batchWaitMs?: number;
  /** How long one receive waits for messages, ms. Default 1 000. */
  receiveWaitMs?: number;
  /** Called when a batch is received, with its size (before it is processed). */
  onBatch?: (size: number) => void;
  /** Called after each message (progress display, tests). */
  onResult?: (result: ProcessResult, message: ReceivedMessage) => void;
}

/**
 * The local host's stand-in for a Service Bus batch trigger: receives batches from one work
 * queue in peek-lock mode and hands each to the same {@link ProcessQueueMessageService} the
 * Functions app uses, with up to `concurrency` messages in flight, so that the next batch is
 * received while one is applied. `stop()` stops receiving and waits for the batches in flight; a
 * message whose processing is cut short stays locked and is delivered again after its lock
 * expires, so nothing is lost.
 */
export class QueueProcessor {
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private messagesInFlight = 0;
  private bytesInFlight = 0;
  private idleWaiters: Array<() => void> = [];
  /** Wakes the receive loop when a batch in flight is done. */
  private slotFreed?: () => void;

  constructor(private readonly options: QueueProcessorOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Messages being processed right now. */
  get busy(): number {
    return this.messagesInFlight;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.slotFreed?.();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async run(): Promise<void> {
    const { bus, queue, log } = this.options;
    const concurrency = this.options.concurrency ?? 512;
    const maxBatch = Math.max(1, Math.min(this.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE, concurrency));
    const maxBytes = this.options.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT;
    while (this.running) {
      const free = concurrency - this.messagesInFlight;
      // A batch waits for room for a whole batch, or for the last batch in flight to end, and while
      // the bodies in flight hold `maxBytes`.
      if (free <= 0 || (free < maxBatch && this.inFlight.size > 0) || this.bytesInFlight >= maxBytes) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      const wanted = Math.min(free, maxBatch);
      let messages: ReceivedMessage[];
      try {
        messages = await bus.receive(queue, { maxMessages: wanted, maxWaitMs: this.options.receiveWaitMs ?? 1_000 });
        const waitMs = this.options.batchWaitMs ?? DEFAULT_BATCH_WAIT_MS;
        if (messages.length > 0 && messages.length < wanted && waitMs > 0 && this.running) {
          // Detection sends in batches: a few ms more often fill the batch, one commit for many.
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          messages = messages.concat(await bus.receive(queue, { maxMessages: wanted - messages.length, maxWaitMs: 0 }));
        }
      } catch (err) {
        log.error(`receive from ${queue} failed: ${errorMessage(err)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (messages.length > 0) this.track(this.handle(messages), messages.length, messages.reduce((sum, m) => sum + m.body.byteLength, 0));
      else this.notifyIdle();
    }
  }

  private async handle(messages: ReceivedMessage[]): Promise<void> {
    const { bus, processor, log, onResult, queue } = this.options;
    const items: ReceivedItem[] = messages.map((message) => ({ message, settler: busSettler(bus, message) }));
    const settlement: BatchSettlement = {
      completeMany: (some) => bus.completeMany(some.map((item) => item.message as ReceivedMessage)),
    };
    try {
      const results = await processor.executeBatch(items, queue, settlement);
      results.forEach((result, i) => {
        // Not settled (lock lost, bus down): the broker delivers it again.
        if (result.settleError !== undefined) log.warn(`message ${messages[i].messageId} on ${queue} not settled: ${result.settleError}`);
        onResult?.(result, messages[i]);
      });
    } catch (err) {
      log.warn(`a batch of ${messages.length} message(s) on ${queue} was not processed: ${errorMessage(err)}`);
    }
  }

  private track(work: Promise<void>, count: number, bytes: number): void {
    this.inFlight.add(work);
    this.messagesInFlight += count;
    this.bytesInFlight += bytes;
    this.options.onBatch?.(count);
    void work.finally(() => {
      this.inFlight.delete(work);
      this.messagesInFlight -= count;
      this.bytesInFlight -= bytes;
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
