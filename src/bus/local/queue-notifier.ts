import { performance } from 'node:perf_hooks';

/**
 * Wakes receivers waiting on a queue when a bus in this process commits a message to it, so
 * that an in-process send is received at once instead of at the next poll. Buses on the same
 * database file in one process share a channel; other processes are found by polling.
 */
const channels = new Map<string, Set<QueueNotifier>>();

export class QueueNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(private readonly file: string) {
    let peers = channels.get(file);
    if (!peers) channels.set(file, (peers = new Set()));
    peers.add(this);
  }

  /** Announces new receivable messages on a queue or (`dead`) its dead-letter subqueue. */
  notify(queue: string, dead: boolean): void {
    const key = keyOf(queue, dead);
    for (const peer of channels.get(this.file) ?? []) peer.wake(key);
  }

  /** Resolves when the (sub)queue is notified, after `ms` of real time, or when closed. Never rejects. */
  wait(queue: string, dead: boolean, ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    const key = keyOf(queue, dead);
    return new Promise<void>((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /**
   * Waits until `probe` (a cheap read) says a message may be receivable, checking whenever the
   * (sub)queue is notified and at least every `pollMs` (real time). False once `deadline`
   * (a `performance.now()` time) passes or the notifier is closed.
   */
  async waitFor(queue: string, dead: boolean, deadline: number, pollMs: number, probe: () => boolean): Promise<boolean> {
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0 || this.closed) return false;
      await this.wait(queue, dead, Math.min(pollMs, left));
      if (this.closed) return false;
      if (probe()) return true;
    }
  }

  /** Releases every waiter and leaves the channel. */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const done of [...set]) done();
    const peers = channels.get(this.file);
    peers?.delete(this);
    if (peers?.size === 0) channels.delete(this.file);
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (set) for (const done of [...set]) done();
  }
}

function keyOf(queue: string, dead: boolean): string {
  return dead ? `${queue}/$deadletterqueue` : queue;
}
