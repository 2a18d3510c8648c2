import { closeRuntime, getRuntime, setRuntimeFactory } from '../../../functions/runtime-instance';
import type { Runtime } from '../../../src/runtime/runtime';
import { FakeClock } from '../../support/fake-clock';

function fakeRuntime(name: string) {
  const closed: string[] = [];
  return { runtime: { close: async () => void closed.push(name) } as unknown as Runtime, closed };
}

describe('the shared runtime of the worker process', () => {
  it('creates one runtime for concurrent first uses and reuses it', async () => {
    const { runtime } = fakeRuntime('a');
    let created = 0;
    setRuntimeFactory(async () => {
      created++;
      await new Promise((resolve) => setImmediate(resolve));
      return runtime;
    });
    const [first, second] = await Promise.all([getRuntime(), getRuntime()]);
    expect(first).toBe(runtime);
    expect(second).toBe(runtime);
    expect(await getRuntime()).toBe(runtime);
    expect(created).toBe(1);
  });

  it('does not keep a failed creation: the next use tries again', async () => {
    const { runtime } = fakeRuntime('b');
    const attempts: number[] = [];
    setRuntimeFactory(async () => {
      attempts.push(attempts.length + 1);
      if (attempts.length === 1) throw new Error('storage unreachable');
      return runtime;
    });
    await expect(getRuntime()).rejects.toThrow('storage unreachable');
    expect(await getRuntime()).toBe(runtime);
    expect(attempts).toEqual([1, 2]);
  });

  it('closes the runtime on shutdown and creates a new one on the next use', async () => {
    const a = fakeRuntime('a');
    const b = fakeRuntime('b');
    const runtimes = [a.runtime, b.runtime];
    setRuntimeFactory(async () => runtimes.shift() as Runtime);
    expect(await getRuntime()).toBe(a.runtime);
    await closeRuntime();
    expect(a.closed).toEqual(['a']);
    expect(await getRuntime()).toBe(b.runtime);
    await closeRuntime();
    await closeRuntime();
    expect(b.closed).toEqual(['b']);
  });

  it('closing after a failed creation does nothing', async () => {
    setRuntimeFactory(() => Promise.reject(new Error('bad settings')));
    await expect(getRuntime()).rejects.toThrow('bad settings');
    await expect(closeRuntime()).resolves.toBeUndefined();
  });

  describe('within the shutdown budget', () => {
    function watch(promise: Promise<void>) {
      const state = { done: false };
      void promise.then(() => (state.done = true));
      return state;
    }

    it('gives up on a close that hangs once the budget is spent, and says so', async () => {
      const clock = new FakeClock();
      const warnings: string[] = [];
      const hanging = { close: () => new Promise<void>(() => undefined) } as unknown as Runtime;
      setRuntimeFactory(async () => hanging);
      await getRuntime();
      const closing = watch(closeRuntime({ budgetMs: 4_000, clock, log: { warn: (m) => warnings.push(m) } }));
      await clock.advance(4_000);
      expect(closing.done).toBe(false); // the slack for a runtime that does not end its close by itself
      await clock.advance(250);
      expect(closing.done).toBe(true);
      expect(warnings).toEqual(['runtime not closed at shutdown: gave up after 4250 ms']);
    });

    it('does not wait beyond the budget for a runtime still being created (cold start against unreachable storage)', async () => {
      const clock = new FakeClock();
      const warnings: string[] = [];
      setRuntimeFactory(() => new Promise<Runtime>(() => undefined));
      void getRuntime();
      const closing = watch(closeRuntime({ budgetMs: 4_000, clock, log: { warn: (m) => warnings.push(m) } }));
      await clock.advance(3_999);
      expect(closing.done).toBe(false);
      await clock.advance(1);
      expect(closing.done).toBe(true);
      expect(warnings).toEqual(['runtime still being created at shutdown: gave up after 4000 ms; not closed']);
    });

    it('hands the runtime what is left of the budget after its creation', async () => {
      const clock = new FakeClock();
      const given: unknown[] = [];
      let created!: (r: Runtime) => void;
      setRuntimeFactory(() => new Promise<Runtime>((resolve) => (created = resolve)));
      void getRuntime();
      const closing = watch(closeRuntime({ budgetMs: 4_000, clock, log: { warn: () => undefined } }));
      await clock.advance(1_500);
      created({ close: async (withinMs?: number) => void given.push(withinMs) } as unknown as Runtime);
      await clock.advance(0);
      expect(closing.done).toBe(true);
      expect(given).toEqual([2_500]);
    });
  });
});
