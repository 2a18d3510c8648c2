import { deadlineAfter } from '../../../src/platform/deadline';
import { FakeClock } from '../../support/fake-clock';

describe('deadlineAfter', () => {
  it('counts down on the clock and stops at 0', async () => {
    const clock = new FakeClock();
    const deadline = deadlineAfter(clock, 4_000);
    expect(deadline.remainingMs()).toBe(4_000);
    await clock.advance(1_500);
    expect(deadline.remainingMs()).toBe(2_500);
    await clock.advance(3_000);
    expect(deadline.remainingMs()).toBe(0);
  });
});
