import { holdUntilCreated, STARTUP_HOLD_MS, startupRetryDelayMs } from '../../../functions/support/startup-hold';
import { FakeClock } from '../../support/fake-clock';

describe('the backoff while the runtime cannot be created', () => {
  it('waits 5 s, doubling, at most a minute', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(startupRetryDelayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  it('treats odd attempt numbers as the first', () => {
    expect([0, -3, Number.NaN, Infinity].map(startupRetryDelayMs)).toEqual([5_000, 5_000, 5_000, 5_000]);
  });

  it('holds 15 minutes: ten abandons take two and a half hours', () => {
    expect(STARTUP_HOLD_MS).toBe(900_000);
    expect(10 * STARTUP_HOLD_MS).toBe(150 * 60_000);
  });
});

describe('holdUntilCreated (fake clock)', () => {
  const options = (clock: FakeClock, deadline: number, retries: Array<[number, number]>, held = () => true) => ({
    clock,
    deadline: () => deadline,
    stillHeld: held,
    onRetry: (_err: unknown, attempt: number, delayMs: number) => void retries.push([attempt, delayMs]),
  });

  it('retries on the backoff until creation succeeds', async () => {
    const clock = new FakeClock();
    const start = clock.now().getTime();
    const attemptsAt: number[] = [];
    const retries: Array<[number, number]> = [];
    const holding = holdUntilCreated(async () => {
      attemptsAt.push(clock.now().getTime() - start);
      if (attemptsAt.length < 4) throw new Error('403 This request is not authorized');
      return 'runtime';
    }, options(clock, start + STARTUP_HOLD_MS, retries));
    await clock.advance(60_000);
    expect(await holding).toBe('runtime');
    expect(attemptsAt).toEqual([0, 5_000, 15_000, 35_000]);
    expect(retries).toEqual([
      [1, 5_000],
      [2, 10_000],
      [3, 20_000],
    ]);
  });

  it('cuts the last wait to the deadline, tries once more there, then throws the last failure', async () => {
    const clock = new FakeClock();
    const start = clock.now().getTime();
    const attemptsAt: number[] = [];
    const holding = holdUntilCreated(async () => {
      attemptsAt.push(clock.now().getTime() - start);
      throw new Error(`storage unreachable #${attemptsAt.length}`);
    }, options(clock, start + 12_000, []));
    const outcome = holding.catch((err: Error) => err.message);
    await clock.advance(20_000);
    expect(await outcome).toBe('storage unreachable #3');
    expect(attemptsAt).toEqual([0, 5_000, 12_000]);
  });

  it('stops holding once no message is held any more (every lock lost)', async () => {
    const clock = new FakeClock();
    let held = true;
    const holding = holdUntilCreated(
      async () => {
        throw new Error('storage unreachable');
      },
      options(clock, clock.now().getTime() + STARTUP_HOLD_MS, [], () => held),
    );
    const outcome = holding.catch((err: Error) => err.message);
    await clock.advance(4_000);
    held = false; // the second attempt, at 5 s, fails again: no further wait
    await clock.advance(10_000);
    expect(await outcome).toBe('storage unreachable');
    expect(clock.sleeps).toEqual([5_000]);
  });
});
