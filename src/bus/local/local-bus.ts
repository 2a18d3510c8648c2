import { performance } from 'node:perf_hooks';
import type { Clock } from '../../platform/clock';
import Database from 'better-sqlite3';
import {
  BusError,
  type ApplicationProperties,
  type BusMessage,
  type DeadLetterOptions,
  type MessageBatch,
  type MessageBus,
  type OutgoingMessage,
  type PeekOptions,
  type QueueCounts,
  type ReceivedMessage,
  type ReceiveOptions,
} from '../message-bus';
import { messagesArgument, peekArguments, receiveArguments } from './bus-arguments';
import { commitSync } from './commit-sync';
import { Completions } from './completions';
import { LocalBatch } from './local-batch';
import { decodeReceived, decodeRow, encodeMessage, storedBytes, type EncodedMessage } from './message-codec';
import { DuplicateIndex } from './duplicate-index';
import { MessageStore } from './message-store';
import { AUTO_CHECKPOINT_PAGES, openDatabase, validateBusOptions } from './open-database';
import {
  DEFAULT_POLL_INTERVAL_MS,
  parseDeclaration,
  validateQueueName,
  validateQueueOptions,
  type LocalBusOptions,
  type QueueOptions,
} from './options';
import { QueueCatalog, type QueueInfo } from './queue-catalog';
import { QueueNotifier } from './queue-notifier';
import { Settlement } from './settlement';
import { toBusError } from './sqlite-errors';
import { TransactionBatcher } from './transaction-batcher';
import { WalCheckpointer } from '../../sqlite/wal-checkpointer';

/**
 * The embedded, durable message bus: one SQLite file in WAL mode with Service Bus semantics
 * (peek-lock, delivery counts, dead-letter subqueue, TTL, scheduling, duplicate detection).
 *
 * Queues are declared, as in Service Bus: option `queues` of {@link LocalBus.open}, or
 * {@link LocalBus.createQueue}. Declarations are stored in the file, so every process on it
 * knows them; any other call on an undeclared queue fails with `QueueNotFound`.
 *
 * Durability: a call resolves after its transaction committed. With `synchronous: 'NORMAL'`
 * (default) that survives a crash of any process; power loss or an OS crash may lose the last
 * commits but never corrupts the file. With `'FULL'` the calls whose loss no redelivery would
 * redo (send, sendBatch, deadLetter, createQueue) also wait for a sync of the WAL, off the event
 * loop; receive and settling do not (which and why: `commit-sync.ts`).
 *
 * Several processes may share the file (the host and the dead-letter mover): every write runs
 * in a `BEGIN IMMEDIATE` transaction, and a busy file is waited for up to `busyTimeoutMs`.
 */
export class LocalBus implements MessageBus {
  private readonly catalog: QueueCatalog;
  private readonly store: MessageStore;
  private readonly duplicates: DuplicateIndex;
  private readonly batcher: TransactionBatcher;
  private readonly checkpointer: WalCheckpointer;
  private readonly notifier: QueueNotifier;
  private readonly completions: Completions;
  private readonly settlement: Settlement;
  private readonly clock: Pick<Clock, 'now'> | undefined;
  private readonly pollIntervalMs: number;
  private closed = false;

  private constructor(
    private readonly db: Database.Database,
    /** Absolute path of the database file. */
    readonly file: string,
    options: LocalBusOptions,
  ) {
    this.catalog = new QueueCatalog(db, file);
    this.store = new MessageStore(db);
    this.duplicates = new DuplicateIndex(db);
    this.checkpointer = new WalCheckpointer(file, AUTO_CHECKPOINT_PAGES);
    const sync = commitSync(file, options.synchronous, options.syncFile);
    this.batcher = new TransactionBatcher(db, file, (bytes) => this.checkpointer.wrote(bytes), sync);
    this.notifier = new QueueNotifier(file);
    this.clock = options.clock;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const { batcher, store } = this;
    this.completions = new Completions({ batcher, store, now: () => this.now(), closed: () => this.closed });
    this.settlement = new Settlement({ batcher, store, notifier: this.notifier, now: () => this.now(), queue: (name) => this.queue(name) });
  }

  /**
   * Opens (creating if needed) `<dataDir>/<fileName>` and declares `options.queues`.
   * @throws BusError `Corrupt` (naming the file) when it is not a bus database, `Unavailable`
   * when it cannot be opened, `InvalidArgument` for bad options.
   */
  static async open(options: LocalBusOptions): Promise<LocalBus> {
    validateBusOptions(options);
    const declarations = (options.queues ?? []).map(parseDeclaration);
    return openDatabase(options, (db, file) => {
      const bus = new LocalBus(db, file, options);
      try {
        bus.store.dropOrphanContents();
        for (const d of declarations) bus.catalog.declare(d.name, d.options);
        return bus;
      } catch (err) {
        bus.notifier.close();
        throw err;
      }
    });
  }

  /**
   * Declares a queue: creates it with defaults plus `options`, or, when it exists, overwrites
   * just the options given. Idempotent. @throws BusError `InvalidArgument`.
   */
  async createQueue(name: string, options: QueueOptions = {}): Promise<void> {
    this.ensureOpen();
    validateQueueName(name);
    const given = validateQueueOptions(name, options);
    await this.batcher.run(() => {
      this.catalog.declare(name, given);
      this.batcher.durable();
    });
  }

  async listQueues(): Promise<string[]> {
    return this.read(() => this.catalog.names());
  }

  async send(queue: string, messages: OutgoingMessage[]): Promise<void> {
    const info = this.queue(queue);
    const encoded = messagesArgument(messages).map((m, i) => encodeMessage(m, i));
    const max = info.options.maxMessageSizeBytes;
    encoded.forEach((m, i) => {
      if (m.size > max) {
        throw new BusError('MessageTooLarge', `messages[${i}] is ${m.size} bytes; queue "${queue}" allows at most ${max} bytes`);
      }
    });
    await this.insert(info, encoded);
  }

  async createBatch(queue: string): Promise<MessageBatch> {
    const info = this.queue(queue);
    return new LocalBatch(queue, info.options.maxMessageSizeBytes, this);
  }

  async sendBatch(batch: MessageBatch): Promise<void> {
    if (!(batch instanceof LocalBatch) || batch.owner !== this) {
      throw new BusError('InvalidArgument', 'batch must be created by createBatch of this bus');
    }
    await this.insert(this.queue(batch.queue), batch.messages);
  }

  async receive(queue: string, options?: ReceiveOptions): Promise<ReceivedMessage[]> {
    const info = this.queue(queue);
    const { max, waitMs, dead } = receiveArguments(options);
    const deadline = performance.now() + waitMs;
    for (;;) {
      const rows = await this.batcher.run(() => this.store.claim(info, dead, max, this.now()));
      if (rows.length > 0) return rows.map((row) => decodeReceived(row.state, row.content, queue, dead));
      const probe = () => this.read(() => this.store.anyAvailable(info, dead, this.now()));
      if (!(await this.notifier.waitFor(info.name, dead, deadline, this.pollIntervalMs, probe))) return [];
    }
  }

  async renewLock(message: ReceivedMessage): Promise<Date> {
    return this.settlement.renewLock(message);
  }

  async complete(message: ReceivedMessage): Promise<void> {
    this.ensureOpen();
    await this.completions.complete(message);
  }

  /** One transaction for all of them (see {@link Completions.completeMany}). */
  async completeMany(messages: readonly ReceivedMessage[]): Promise<Array<BusError | undefined>> {
    this.ensureOpen();
    return this.completions.completeMany(messages);
  }

  async abandon(message: ReceivedMessage, propertiesToModify?: ApplicationProperties): Promise<void> {
    return this.settlement.abandon(message, propertiesToModify);
  }

  async deadLetter(message: ReceivedMessage, options: DeadLetterOptions): Promise<void> {
    return this.settlement.deadLetter(message, options);
  }

  async peek(queue: string, options?: PeekOptions): Promise<BusMessage[]> {
    const info = this.queue(queue);
    const { max, fromSeq, dead } = peekArguments(options);
    return this.read(() => this.store.peek(info, dead, fromSeq, max).map((m) => decodeRow(m.state, m.content, queue)));
  }

  async counts(queue: string): Promise<QueueCounts> {
    const info = this.queue(queue);
    return this.batcher.run(() => this.store.counts(info, this.now()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.completions.dropAll();
    this.batcher.flush();
    // The calls just flushed settle (under FULL, after their sync) before close resolves.
    await this.batcher.settled();
    await this.checkpointer.close();
    this.notifier.close();
    this.db.close();
  }

  private async insert(info: QueueInfo, messages: readonly EncodedMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const { requiresDuplicateDetection: dedup, duplicateDetectionWindowMs: window } = info.options;
    await this.batcher.run(() => {
      const now = this.now();
      if (dedup) this.duplicates.join(this.batcher, now);
      const isNew = dedup ? (id: string) => this.duplicates.remember(info.id, id, now, window) : () => true;
      const stored = this.store.insert(info, messages, now, isNew);
      if (dedup) this.duplicates.append();
      if (stored > 0) this.batcher.afterCommit(() => this.notifier.notify(info.name, false));
      this.batcher.wrote(storedBytes(messages));
      // Also when every message was a duplicate: the first copy may not be on disk yet.
      this.batcher.durable();
    });
  }

  private queue(name: string): QueueInfo {
    this.ensureOpen();
    return this.read(() => this.catalog.require(name));
  }

  private read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw toBusError(err, this.file);
    }
  }

  private now(): number {
    // No Date per call on the system clock: this runs for every message.
    return this.clock ? this.clock.now().getTime() : Date.now();
  }

  private ensureOpen(): void {
    if (this.closed) throw new BusError('InvalidArgument', `The local bus ${this.file} is closed`);
  }
}
