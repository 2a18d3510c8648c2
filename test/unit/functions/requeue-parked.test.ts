import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvocationContext, type Timer } from '@azure/functions';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { readSettings } from '../../../src/platform/settings';
import type { Clock } from '../../../src/platform/clock';
import type { Runtime } from '../../../src/runtime/runtime';
import { requeueDue } from '../../../src/runtime/scheduled-requeue';
import { silentLogger } from '../../../src/telemetry/logger';
import { requeueParkedTimer } from '../../../functions/RequeueParked';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { allQueueNames, DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/** The RequeueParked timer: off by default, on by the requeue file, due by its schedule. */
const timer = { isPastDue: false } as Timer;

describe('RequeueParked', () => {
  let dir: string;
  let logs: string[];
  let context: InvocationContext;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-rq-fn-'));
    logs = [];
    context = new InvocationContext({ functionName: 'RequeueParked', logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });
    setRuntimeFactory(() => Promise.reject(new Error('the runtime must not be created while the requeue is off')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is off without HIGHWATER_REQUEUE_CONFIG, and with a requeue file that does not enable it', async () => {
    await requeueParkedTimer(timer, context, {});
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: { enabled: false }\n');
    await requeueParkedTimer(timer, context, { HIGHWATER_REQUEUE_CONFIG: dir });
    expect(logs).toEqual(['debug: requeue off: HIGHWATER_REQUEUE_CONFIG is not set', `debug: requeue off: no requeue file with enabled: true in ${dir}`]);
  });

  it('fails the invocation on a bad requeue file, naming file and property', async () => {
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: { enabled: true, maxRequeues: 0 }\n');
    await expect(requeueParkedTimer(timer, context, { HIGHWATER_REQUEUE_CONFIG: dir })).rejects.toThrow('requeue.yaml: requeue.maxRequeues: must be at least 1');
  });

  it('runs when an occurrence of the schedule fell in the last minute, and moves parked messages back', async () => {
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: { enabled: true, schedule: "0 */5 * * * *" }\n');
    const settings = { ...readSettings({}), dataDir: path.join(dir, 'data') };
    const bus = await LocalBus.open({ dataDir: settings.dataDir, queues: allQueueNames(DEFAULT_QUEUES).map((name) => ({ name })) });
    let now = new Date('2026-05-01T12:03:30Z');
    const clock = { now: () => now } as Clock;
    const runtime = { bus, settings, clock, log: silentLogger, init: { ensureInitialized: async () => undefined, config: { jobs: [] } } } as unknown as Runtime;
    setRuntimeFactory(async () => runtime);
    try {
      await bus.send('sbqtransitivehigh', [{ body: new Uint8Array(Buffer.from('{}')), messageId: 'p1', applicationProperties: { JobName: 'accounts', ErrorType: 'TransitiveError' } }]);
      await requeueParkedTimer(timer, context, { HIGHWATER_REQUEUE_CONFIG: dir });
      expect((await bus.peek('sbqhigh')).length).toBe(0); // 12:03:30: no occurrence since 12:02:30
      now = new Date('2026-05-01T12:05:30Z');
      await requeueParkedTimer(timer, context, { HIGHWATER_REQUEUE_CONFIG: dir });
      expect((await bus.peek('sbqhigh')).map((m) => m.applicationProperties.RequeueCount)).toEqual([1]);
      expect(logs).toContain('information: requeue: 1 resubmitted, 0 left for a person, 0 failed');
    } finally {
      await bus.close();
    }
  });

  it('is due exactly when an occurrence lies in (now - window, now]', () => {
    const at = (iso: string) => requeueDue('0 */5 * * * *', new Date(iso), 60_000);
    expect([at('2026-05-01T12:05:00Z'), at('2026-05-01T12:05:59Z'), at('2026-05-01T12:06:00Z'), at('2026-05-01T12:04:59Z')]).toEqual([true, true, false, false]);
  });
});
