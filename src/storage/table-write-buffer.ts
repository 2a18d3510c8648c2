import type { Clock } from '../platform/clock';
import type { TableBatchAction, TableStore } from './table-store';

export interface TableWriteBufferOptions {
  /** Pending writes are flushed at this size (sent as one transaction per partition). Default 400. */
  flushAt?: number;
  /** And at least this often, in ms. Default 1,000. */
  flushEveryMs?: number;
}

/**
 * Table writes that need not be awaited by the work that causes them (what was applied per
 * record): buffered by key — the last write of a key wins — and sent as batched transactions at
 * a size or on a timer. A failed send keeps its rows for the next flush unless a newer write of
 * the same key came meanwhile. What a crash loses is at most one flush interval's rows; the
 * stores built on it say what that costs them.
 */
export class TableWriteBuffer<A extends TableBatchAction = TableBatchAction> {
  private pending = new Map<string, A>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly stopTimer: () => void;

  constructor(
    private readonly table: TableStore,
    /** Drives the periodic flush; none: flushed only at the size, by {@link flush} and {@link close}. */
    clock: Pick<Clock, 'every'> | undefined,
    private readonly options: TableWriteBufferOptions = {},
  ) {
    this.stopTimer = clock ? clock.every(options.flushEveryMs ?? 1_000, () => void this.flush().catch(() => undefined)) : () => undefined;
  }

  /** Buffers `action` under `key`; at the size a flush starts (not awaited: a failure is retried by the next). */
  set(key: string, action: A): void {
    this.pending.set(key, action);
    if (this.pending.size >= (this.options.flushAt ?? 400)) void this.flush().catch(() => undefined);
  }

  /** The buffered write of `key`, not sent yet. */
  get(key: string): A | undefined {
    return this.pending.get(key);
  }

  /** Drops the buffered write of `key`. */
  delete(key: string): void {
    this.pending.delete(key);
  }

  /** Resolves when a flush in flight ended (its rows are then stored, or back in the buffer). */
  async settled(): Promise<void> {
    await this.flushing.catch(() => undefined);
  }

  /** Sends what is buffered; concurrent callers wait for the same send. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(async () => {
      if (this.pending.size === 0) return;
      const taken = this.pending;
      this.pending = new Map();
      try {
        await this.table.submitBatch([...taken.values()]);
      } catch (err) {
        for (const [key, action] of taken) if (!this.pending.has(key)) this.pending.set(key, action);
        throw err;
      }
    });
    return this.flushing;
  }

  /** Stops the timer and sends the rest. */
  async close(): Promise<void> {
    this.stopTimer();
    await this.flush();
  }
}
