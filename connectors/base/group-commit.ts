import { TransientError } from '../../src/platform/errors';

/** The outcome of one item of a batch. */
export type ItemResult<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<T, R> {
  /** Sends one item alone. */
  sendOne: (item: T) => Promise<R>;
  /** Sends several items in one request; one result per item, in order. Rejects when the whole request failed. */
  sendMany: (items: T[]) => Promise<Array<ItemResult<R>>>;
  /** Most items per request. */
  maxSize: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: an item submitted while no request is in flight goes out at once, alone; items
 * submitted while one is in flight wait and go out together (up to `maxSize`) when it returns.
 * Under load this turns many small writes into few batches without adding a delay when idle.
 */
export class GroupCommit<T, R> {
  private readonly queue: Array<Waiting<T, R>> = [];
  private busy = false;

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.options.maxSize);
        await this.send(group);
      }
    } finally {
      this.busy = false;
    }
  }

  private async send(group: Array<Waiting<T, R>>): Promise<void> {
    if (group.length === 1) {
      const [one] = group;
      await this.options.sendOne(one.item).then(one.resolve, one.reject);
      return;
    }
    let results: Array<ItemResult<R>>;
    try {
      results = await this.options.sendMany(group.map((w) => w.item));
    } catch (err) {
      for (const waiting of group) waiting.reject(err);
      return;
    }
    group.forEach((waiting, i) => {
      const result = results[i];
      if (!result) waiting.reject(new TransientError(`the batch answered ${results.length} of ${group.length} requests`));
      else if (result.ok) waiting.resolve(result.value);
      else waiting.reject(result.error);
    });
  }
}
