import { closeRuntime, getRuntime, setRuntimeFactory } from '../../../functions/runtime-instance';
import type { Runtime } from '../../../src/runtime/runtime';

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
});
