import { FakeClock } from '../../../support/fake-clock';

/**
 * A {@link FakeClock} that also knows which sleeps are still pending and when they are due, so a
 * driver can move time exactly to the next sleep that anyone waits for — however many sleeps in
 * a row one delivery takes (backoff, then a `Retry-After`, …).
 */
export class SteppingClock extends FakeClock {
  private readonly pendingDue: number[] = [];

  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const due = this.now().getTime() + ms;
    this.pendingDue.push(due);
    const forget = () => this.pendingDue.splice(this.pendingDue.indexOf(due), 1);
    return super.sleep(ms, signal).finally(forget);
  }

  /** Sleeps not yet over. */
  get pendingSleeps(): number {
    return this.pendingDue.length;
  }

  /** Moves time to the earliest pending sleep (firing it and anything due before); no-op when none is pending. */
  async advanceToNextSleep(): Promise<void> {
    if (this.pendingDue.length === 0) return;
    await this.advance(Math.max(0, Math.min(...this.pendingDue) - this.now().getTime()));
  }
}
