import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LocalBus } from '../../../../src/bus/local/local-bus';
import type { MessageBus } from '../../../../src/bus/message-bus';
import { MoverFixture } from './mover-fixture';

/**
 * Safety of `--apply` on a real local bus: the snapshot bound, partial failure, an interrupted
 * run, a crash between send and complete, and lock renewal of held messages.
 */

const RESUBMIT_ALL = 'rules:\n  - match: {}\n    action: Resubmit\n';
const ARGS = ['--queue', 'sbqnormal', '--dead-letter', '--rules', 'all.yaml', '--apply'];

/** The bus with some methods replaced (the others call the real one). */
function intercept(inner: MessageBus, overrides: Partial<MessageBus>): MessageBus {
  return new Proxy(inner, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof MessageBus];
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const keys = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => ({ sourceKey: `${prefix}${i}`, errorMessage: 'timeout' }));

describe('dead-letter-mover --apply safety on the local bus', () => {
  let fx: MoverFixture;

  beforeEach(() => {
    fx = new MoverFixture();
  });

  afterEach(() => fx.cleanup());

  async function open(lockDurationMs?: number, clock?: () => Date): Promise<void> {
    await fx.open(lockDurationMs === undefined ? {} : { lockDurationMs }, clock);
    writeFileSync(path.join(fx.dir, 'all.yaml'), RESUBMIT_ALL);
  }

  it('works on the snapshot: a message dead-lettered during the run is not acted on; one taken by another receiver is a failure (exit 1)', async () => {
    await open();
    const [takenId] = await fx.deadLetter('sbqnormal', keys(3));
    const other = await LocalBus.open({ dataDir: fx.dataDir });
    let first = true;
    const openBus = async () => {
      const inner = await LocalBus.open({ dataDir: fx.dataDir });
      return intercept(inner, {
        async receive(queue, options) {
          if (first) {
            first = false;
            await other.receive('sbqnormal', { subQueue: 'deadLetter', maxMessages: 1 }); // locks the first
            await fx.deadLetter('sbqnormal', [{ sourceKey: 'late', errorMessage: 'timeout' }]);
          }
          return inner.receive(queue, options);
        },
      });
    };

    const run = await fx.run([...ARGS, '--json'], { openBus });
    await other.close();

    expect(run.code).toBe(1);
    const results = run.json().results as { resubmitted: number; failures: Array<{ messageId: string; error: string }> };
    expect(results.resubmitted).toBe(2);
    expect(results.failures).toEqual([
      { messageId: takenId, sequenceNumber: '1', error: 'not received: locked by another receiver, removed or expired since the snapshot; nothing was done' },
    ]);
    const dead = await fx.peekAll('sbqnormal', 'deadLetter');
    expect(dead.map((m) => m.applicationProperties.SourceKey)).toEqual(['k0', 'late']);
    expect((await fx.peekAll('sbqnormal')).map((m) => m.applicationProperties.SourceKey)).toEqual(['k1', 'k2']);
  });

  it('Ctrl-C stops after the current batch (exit 1); a second run finishes the rest', async () => {
    await open();
    await fx.deadLetter('sbqnormal', keys(150));
    const controller = new AbortController();
    const interrupted = await fx.run([...ARGS, '--json'], {
      signal: controller.signal,
      err: (line) => line.startsWith('progress:') && controller.abort(),
    });

    expect(interrupted.code).toBe(1);
    const results = interrupted.json().results as { resubmitted: number; failed: number; interrupted: boolean; failures: Array<{ error: string }> };
    expect(results).toMatchObject({ resubmitted: 100, failed: 50, interrupted: true });
    expect(results.failures[0].error).toBe('not done: the run was interrupted first; nothing was done');

    const rest = await fx.run(ARGS);
    expect(rest.code).toBe(0);
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 150, scheduled: 0, deadLetter: 0 });
  });

  it('a crash between send and complete loses nothing; the rerun\'s resend is dropped as a duplicate', async () => {
    await open(300);
    await fx.deadLetter('sbqnormal', keys(2));
    let crashedBus: MessageBus | undefined;
    const crashing = async () => {
      crashedBus = await LocalBus.open({ dataDir: fx.dataDir });
      // The process "dies" at its first complete: the resubmissions are sent, nothing is completed.
      return intercept(crashedBus, { complete: () => new Promise<void>(() => undefined) });
    };
    void fx.run(ARGS, { openBus: crashing });
    await waitFor(async () => (await fx.bus.counts('sbqnormal')).active === 2);
    await crashedBus?.close();
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 2, scheduled: 0, deadLetter: 2 });

    await new Promise((resolve) => setTimeout(resolve, 400)); // the dead run's locks expire
    const rerun = await fx.run([...ARGS, '--json']);

    expect(rerun.code).toBe(0);
    expect(rerun.json().results).toMatchObject({ resubmitted: 2, failed: 0 });
    const work = await fx.peekAll('sbqnormal');
    expect(work.map((m) => m.applicationProperties.SourceKey)).toEqual(['k0', 'k1']); // once each
    expect(await fx.bus.counts('sbqnormal')).toMatchObject({ deadLetter: 0 });
  });

  it('renews the locks of held messages, so a slow run receives a left message only once', async () => {
    let now = new Date('2026-06-01T00:00:00Z').getTime();
    const clock = () => new Date(now);
    await open(60_000, clock);
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'manual', errorMessage: 'keep' }, ...keys(3)]);
    writeFileSync(path.join(fx.dir, 'timeouts.yaml'), 'rules:\n  - match: { errorMessage: timeout }\n    action: Resubmit\n');
    const renewed: string[] = [];
    const openBus = async () => {
      const inner = await LocalBus.open({ dataDir: fx.dataDir, clock: { now: clock } });
      return intercept(inner, {
        async receive(queue, options) {
          now += 40_000; // each receive takes 40 s: without renewal the 60 s lock runs out
          return inner.receive(queue, { ...options, maxMessages: 1 });
        },
        renewLock: (message) => {
          renewed.push(message.messageId);
          return inner.renewLock(message);
        },
      });
    };

    const run = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--rules', 'timeouts.yaml', '--apply', '--json'], { clock: { now: clock }, openBus });

    expect(run.code).toBe(0);
    expect(run.json().results).toMatchObject({ resubmitted: 3, released: 1 });
    const [left] = await fx.peekAll('sbqnormal', 'deadLetter');
    expect(left.applicationProperties.SourceKey).toBe('manual');
    expect(left.deliveryCount).toBe(2); // once by seeding, once by the mover
    expect(renewed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(renewed)).toEqual(new Set([left.messageId]));
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
