import { resource, startInOrder, step, type LifecycleComponent } from '../../../src/host/lifecycle';

/** A component that records its start and stop in `events`, failing where told to. */
function recorded(name: string, events: string[], fail: { start?: boolean; stop?: boolean } = {}): LifecycleComponent {
  return {
    name,
    async start() {
      if (fail.start) throw new Error(`${name} did not start`);
      events.push(`start ${name}`);
    },
    async stop() {
      events.push(`stop ${name}`);
      if (fail.stop) throw new Error(`${name} did not stop`);
    },
  };
}

describe('startInOrder', () => {
  it('starts in order and stops in reverse, once however often stop is called', async () => {
    const events: string[] = [];
    const stop = await startInOrder([recorded('a', events), recorded('b', events), recorded('c', events)]);
    expect(events).toEqual(['start a', 'start b', 'start c']);
    await Promise.all([stop(), stop()]);
    await stop();
    expect(events).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('stops those already started when a start fails, and throws that start error', async () => {
    const events: string[] = [];
    const components = [recorded('a', events), recorded('b', events, { stop: true }), recorded('c', events, { start: true }), recorded('d', events)];
    await expect(startInOrder(components)).rejects.toThrow('c did not start');
    // b's failing stop does not keep a from stopping, nor hide c's error.
    expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('reports a failing stop and still stops the components before it', async () => {
    const events: string[] = [];
    const failures: string[] = [];
    const stop = await startInOrder([recorded('a', events), recorded('b', events, { stop: true })], {
      onStopError: (err, component) => failures.push(`${component.name}: ${(err as Error).message}`),
    });
    await stop();
    expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a']);
    expect(failures).toEqual(['b: b did not stop']);
  });
});

describe('resource and step', () => {
  it('hands its value to later components and closes that value', async () => {
    const closed: number[] = [];
    const base = resource('base', async () => 41, async (n) => void closed.push(n));
    const seen: number[] = [];
    const stop = await startInOrder([base, step('use', async () => void seen.push(base.value + 1))]);
    expect(seen).toEqual([42]);
    await stop();
    expect(closed).toEqual([41]);
  });

  it('refuses its value before the start', () => {
    const early = resource('the runtime', async () => 1, async () => {});
    expect(() => early.value).toThrow('the runtime is used before it started');
  });

  it('is not closed when its open fails', async () => {
    const closed: string[] = [];
    const broken = resource('broken', () => Promise.reject(new Error('no')), async () => void closed.push('broken'));
    await expect(startInOrder([broken])).rejects.toThrow('no');
    expect(closed).toEqual([]);
  });
});
