import { HostStats } from '../../../src/host/host-stats';
import { settledCount, waitForDrainOrStall } from '../../../src/host/once-wait';
import { FakeClock } from '../../support/fake-clock';

/**
 * `start --once` waits for the queues to drain, but never longer than `stallMs` without progress:
 * each look at the queues takes `lookMs` of fake time here (the host's `drained` waits that long).
 */
describe('waitForDrainOrStall', () => {
  const look = (clock: FakeClock, drainAt: number | undefined, onLook?: (elapsed: number) => void) => {
    const start = clock.now().getTime();
    return async (timeoutMs: number) => {
      const elapsed = clock.now().getTime() - start;
      onLook?.(elapsed);
      if (drainAt !== undefined && elapsed >= drainAt) return true;
      await clock.advance(timeoutMs);
      return false;
    };
  };

  it('ends drained when the queues drain', async () => {
    const clock = new FakeClock();
    let settled = 0;
    const end = await waitForDrainOrStall({ clock, drained: look(clock, 5_000, () => settled++), settled: () => settled, stallMs: 60_000, timeoutMs: 600_000 });
    expect(end).toBe('drained');
  });

  it('ends stalled once nothing settled for stallMs, counted from the last progress', async () => {
    const clock = new FakeClock();
    let settled = 0;
    // Messages settle during the first 10 s, then nothing does (a target in outage).
    const drained = look(clock, undefined, (elapsed) => {
      if (elapsed < 10_000) settled++;
    });
    const began = clock.now().getTime();
    const end = await waitForDrainOrStall({ clock, drained, settled: () => settled, stallMs: 3_000, timeoutMs: 600_000 });
    expect(end).toBe('stalled');
    // Last progress seen at the look after 9 s (at 10 s), stalled 3 s later.
    expect(clock.now().getTime() - began).toBe(13_000);
  });

  it('ends at the timeout while messages keep settling', async () => {
    const clock = new FakeClock();
    let settled = 0;
    const end = await waitForDrainOrStall({ clock, drained: look(clock, undefined, () => settled++), settled: () => settled, stallMs: 3_000, timeoutMs: 20_000 });
    expect(end).toBe('timeout');
  });

  it('counts as progress only messages that reached a final place, not deferred, retried or released ones', () => {
    const stats = new HostStats(new Date());
    const record = (disposition: Parameters<HostStats['recordProcessed']>[0]['disposition']) =>
      stats.recordProcessed({ at: new Date(), queue: 'sbqnormal', jobName: 'j', outcome: 'Success', disposition, messageId: 'm' });
    for (const d of ['deferred', 'retried', 'abandoned'] as const) record(d);
    expect(settledCount(stats)).toBe(0);
    for (const d of ['completed', 'superseded', 'ignored', 'transitive', 'deadLettered'] as const) record(d);
    expect(settledCount(stats)).toBe(5);
  });
});
