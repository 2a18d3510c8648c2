import { lookStep, QueueRoom, resumeDepth, waitForRoom } from '../../../src/detect/queue-room';
import { FakeClock } from '../../support/fake-clock';

describe('backpressure at detection (queue-room)', () => {
  it('looks every quarter of the limit and resumes at half of it', () => {
    expect([1, 2, 4, 5, 5000].map(lookStep)).toEqual([1, 1, 1, 2, 1250]);
    expect([1, 2, 5, 5000].map(resumeDepth)).toEqual([0, 1, 2, 2500]);
  });

  it('a run sends a quarter of the limit before its first look, then stops at the limit', async () => {
    const looked: string[] = [];
    let depth = 4_000;
    const room = new QueueRoom('sbqnormal', 1000, async (queue) => (looked.push(queue), depth), () => undefined);
    expect(await room.full(0)).toBe(false);
    expect(await room.full(249)).toBe(false);
    expect(looked).toEqual([]); // a full queue does not stop a run that has not sent its share
    expect(await room.full(250)).toBe(true);
    depth = 999;
    expect(await room.full(400)).toBe(false);
    expect(looked).toHaveLength(1); // 150 sent since the last look: not looked again
    expect(await room.full(500)).toBe(false);
    depth = 1000;
    expect(await room.full(760)).toBe(true);
    expect(looked).toEqual(['sbqnormal', 'sbqnormal', 'sbqnormal']);
  });

  it('a run whose queue stays nearly empty stops once it has sent the limit: its turn is over', async () => {
    const room = new QueueRoom('sbqnormal', 1000, async () => 0, () => undefined);
    const stops = [];
    for (let sent = 100; sent <= 1200; sent += 100) stops.push(await room.full(sent));
    expect(stops.indexOf(true)).toBe(9); // at 1,000 sent
  });

  it('a limit of 0 never looks', async () => {
    const depth = jest.fn(async () => 1_000_000);
    const room = new QueueRoom('sbqnormal', 0, depth, () => undefined);
    expect(await room.full(1_000_000)).toBe(false);
    expect(depth).not.toHaveBeenCalled();
  });

  it('a depth that cannot be read warns once and lets the run send on', async () => {
    const warnings: string[] = [];
    const depth = jest.fn(async () => {
      throw new Error('Unauthorized: Manage claim required');
    });
    const room = new QueueRoom('sbqhigh', 100, depth, (m) => warnings.push(m));
    expect(await room.full(100)).toBe(false);
    expect(await room.full(200)).toBe(false);
    expect(depth).toHaveBeenCalledTimes(1);
    expect(warnings).toEqual(['queue sbqhigh: depth not readable, this run sends without backpressure: Unauthorized: Manage claim required']);
  });

  describe('waiting for room', () => {
    it('polls every 250 ms until every held queue is at half the limit', async () => {
      const clock = new FakeClock();
      const depths: Record<string, number[]> = { sbqnormal: [900, 700, 500], sbqlow: [600, 400] };
      const depth = async (queue: string) => depths[queue].length > 1 ? (depths[queue].shift() as number) : depths[queue][0];
      let result: boolean | undefined;
      void waitForRoom(['sbqnormal', 'sbqlow', 'sbqnormal'], 1000, depth, clock, () => undefined).then((r) => (result = r));
      await clock.advance(0);
      expect(result).toBeUndefined();
      await clock.advance(250);
      expect(result).toBeUndefined();
      await clock.advance(250);
      expect(result).toBe(true);
      expect(clock.sleeps).toEqual([250, 250]);
    });

    it('gives up at the deadline, or after its longest wait', async () => {
      const clock = new FakeClock('2026-01-01T00:00:00Z');
      let result: boolean | undefined;
      const full = async () => 5000;
      void waitForRoom(['sbqnormal'], 1000, full, clock, () => undefined, { deadline: new Date('2026-01-01T00:00:00.600Z') }).then((r) => (result = r));
      await clock.advance(500);
      expect(result).toBeUndefined();
      await clock.advance(100);
      expect(result).toBe(false);
      expect(clock.sleeps).toEqual([250, 250, 100]);

      result = undefined;
      void waitForRoom(['sbqnormal'], 1000, full, clock, () => undefined).then((r) => (result = r));
      await clock.advance(29_999);
      expect(result).toBeUndefined();
      await clock.advance(1);
      expect(result).toBe(false);
    });

    it('a depth that cannot be read ends the wait with a warning', async () => {
      const warnings: string[] = [];
      const result = await waitForRoom(['sbqnormal'], 10, async () => Promise.reject(new Error('namespace unreachable')), new FakeClock(), (m) => warnings.push(m));
      expect(result).toBe(false);
      expect(warnings).toEqual(['queue depth not readable while waiting for room: namespace unreachable; the held jobs resume on the next tick']);
    });
  });
});
