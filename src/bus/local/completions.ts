import { BusError, isBusError, type ReceivedMessage } from '../message-bus';
import { lockLostError, lockRefOf } from './bus-arguments';
import type { LockRef, MessageStore } from './message-store';
import type { TransactionBatcher } from './transaction-batcher';

/** What completing needs of the bus that owns the store. */
export interface CompletionsOwner {
  readonly batcher: TransactionBatcher;
  readonly store: MessageStore;
  /** The bus clock, epoch ms. */
  now(): number;
  /** Whether the bus is closing or closed: no new transactions are started then. */
  closed(): boolean;
}

/** A message of a `completeMany` call: its lock, or why it has none. */
type Entry = { ok: true; ref: LockRef } | { ok: false; error: BusError };

/**
 * Completion on the local bus, single and in batches. Completing deletes a message's state row;
 * its contents row is deleted later, in bulk (see {@link MessageStore.completed}), which is why
 * both paths share this class: the bookkeeping of due contents must see every completion.
 */
export class Completions {
  constructor(private readonly owner: CompletionsOwner) {}

  /** @throws BusError `LockLost`, `InvalidArgument`, or the transaction's error. */
  async complete(message: ReceivedMessage): Promise<void> {
    const ref = lockRefOf(message);
    const { batcher, store } = this.owner;
    const done = await batcher.run(() => store.complete(ref, this.owner.now()));
    if (!done) throw lockLostError(message);
    this.noteCompleted([ref.seq]);
  }

  /**
   * Completes every message in one operation of the batcher, hence one transaction. Each
   * message is checked against its own lock token, so a stale one is `LockLost` at its index
   * while the others are deleted. A malformed entry is `InvalidArgument` at its index.
   * @throws BusError when the transaction fails (nothing is completed then).
   */
  async completeMany(messages: readonly ReceivedMessage[]): Promise<Array<BusError | undefined>> {
    if (!Array.isArray(messages)) throw new BusError('InvalidArgument', 'messages must be an array');
    const entries = messages.map(entryOf);
    if (!entries.some((e) => e.ok)) return entries.map((e) => (e.ok ? undefined : e.error));
    const { batcher, store } = this.owner;
    const done = await batcher.run(() => {
      const now = this.owner.now();
      return entries.map((e) => e.ok && store.complete(e.ref, now));
    });
    const results = entries.map((e, i): BusError | undefined => {
      if (!e.ok) return e.error;
      return done[i] ? undefined : lockLostError(messages[i]);
    });
    const seqs: number[] = [];
    entries.forEach((e, i) => {
      if (e.ok && done[i]) seqs.push(e.ref.seq);
    });
    this.noteCompleted(seqs);
    return results;
  }

  /** On close: deletes the contents of every completion noted so far. */
  dropAll(): void {
    this.drop(this.owner.store.completed());
  }

  /** Only after the commit: the contents must outlive the message's state. */
  private noteCompleted(seqs: readonly number[]): void {
    for (const seq of seqs) {
      const due = this.owner.store.completed(seq);
      if (due && !this.owner.closed()) this.drop(due);
    }
  }

  /** Deletes contents of completed messages in one transaction (a lost batch is swept on open). */
  private drop(seqs: readonly number[] | undefined): void {
    const { batcher, store } = this.owner;
    if (seqs?.length) batcher.run(() => store.dropContents(seqs)).catch(() => undefined);
  }
}

function entryOf(message: ReceivedMessage, index: number): Entry {
  try {
    return { ok: true, ref: lockRefOf(message) };
  } catch (err) {
    if (!isBusError(err)) throw err;
    return { ok: false, error: new BusError(err.code, `messages[${index}]: ${err.message}`) };
  }
}
