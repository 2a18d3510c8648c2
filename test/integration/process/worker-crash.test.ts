import { spawn } from 'node:child_process';
import path from 'node:path';
import { systemClock, type Clock } from '../../../src/platform/clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A worker killed (SIGKILL) after writing to the target and before completing the message: the
 * message is redelivered once its lock expires and applied again — idempotently, nothing lost.
 */
describe('worker killed mid-message', () => {
  let f: SyncFixture;
  let offsetMs = 0;
  // Bus and processor time; moving it forward expires the dead worker's lock without waiting a minute.
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs), sleep: systemClock.sleep, every: systemClock.every };

  beforeAll(async () => {
    f = await createSyncFixture({ clock });
  });
  afterAll(async () => {
    await f.close();
  });

  it('redelivers the message after the lock expires and applies it once', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Berlin', '2026-01-01T00:00:00.000Z');
    await f.runtime.init.ensureInitialized();
    const run = await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    expect(run.sentByQueue).toEqual({ sbqhigh: 1 });

    const child = spawn(process.execPath, ['-r', path.join(__dirname, '../../../src/platform/swc-register.js'), path.join(__dirname, 'fixtures/crash-worker.ts')], {
      env: { ...process.env, CRASH_CONFIG_DIR: f.dir, CRASH_STORAGE: f.settings.storageConnectionString },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect({ signal, output }).toEqual({ signal: 'SIGKILL', output: 'applied, dying before complete\n' });

    // The target was written (and the response sent); the message itself is still in the queue,
    // locked by the dead worker: only the response message can be received now.
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get('A-1')).toEqual({ n: 1 });
    const high = f.settings.queues.work.high;
    const visible = await f.runtime.bus.receive(high, { maxMessages: 10 });
    expect(visible.map((m) => m.subject)).toEqual(['erp-numbers']);
    for (const m of visible) await f.runtime.bus.abandon(m);

    offsetMs = 61_000;
    const results = await f.drain();
    const redelivered = results.filter((r) => r.jobName === 'crm-accounts');
    expect(redelivered.map((r) => r.outcome)).toEqual(['Success']);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get('A-1')).toEqual({ n: 1 });
    expect(f.crm.prepare('SELECT erp_number FROM accounts WHERE id = ?').get('A-1')).toEqual({ erp_number: expect.any(String) });
    expect(await f.runtime.bus.counts(high)).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
  }, 60_000);
});
