import type { Clock } from '../../src/platform/clock';

interface Timer {
  at: number;
  interval?: number;
  fire: () => void;
  cancelled: boolean;
}

/**
 * A clock whose time moves only when the test says so. `advance(ms)` fires due sleeps and
 * intervals in time order, letting promise continuations run between them.
 */
export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  /** Every sleep requested, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.current + ms, fire: resolve, cancelled: false };
      signal?.addEventListener('abort', () => {
        timer.cancelled = true;
        reject(signal.reason);
      });
      this.timers.push(timer);
    });
  }

  every(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.current + ms, interval: ms, fire: fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Number of timers still waiting (sleeps and intervals). */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing everything due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.current = next.at;
      if (next.interval !== undefined) next.at += next.interval;
      else next.cancelled = true;
      next.fire();
    }
    this.current = end;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
