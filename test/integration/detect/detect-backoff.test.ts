import { HostStats } from '../../../src/host/host-stats';
import { buildStatus } from '../../../src/host/status/build-status';
import { accountJob, accountMapping, accountRows, createAccounts } from './detect-rig';
import { detectSuite } from './detect-suite';
import { describeEngine } from './source-db';

/**
 * Failing jobs back off: each consecutive failure doubles the wait before the timer starts the
 * job again (30 s, 60 s, … capped at 30 min by default); a manual run ignores the wait; a success
 * clears it. Real runtime, Azurite tables, SQLite source; the bus is cut off to make runs fail.
 */
describeEngine('sqlite')('failure backoff', () => {
  const suite = detectSuite('sqlite');

  it('the timer skips a failing job until its retry time; a manual run ignores it; a success resets it', async () => {
    await createAccounts(suite.db, 'flaky');
    await suite.db.insert('flaky', accountRows('F', 1, 3, 0, 1));
    const rig = await suite.open({ mappings: [accountMapping('flaky', 'flaky')], jobs: [accountJob('flaky', 'flaky')] });
    const store = rig.runtime.runStates;

    rig.bus.arm(0);
    const [first] = await rig.runtime.detection.execute();
    expect(first).toMatchObject({ jobName: 'flaky', outcome: 'Failed', error: 'test fault: bus down after 0 batches' });
    expect(first.retryAt!.getTime() - first.endedAt.getTime()).toBeGreaterThanOrEqual(29_000);
    expect(first.retryAt!.getTime() - first.endedAt.getTime()).toBeLessThanOrEqual(30_000);
    expect(await store.getRunState('flaky')).toMatchObject({ failures: 1, retryAt: first.retryAt });
    const [logged] = await rig.runtime.runLog.latest('flaky', 1);
    expect(logged.retryAt).toEqual(first.retryAt);

    const status = await buildStatus(rig.runtime, new HostStats(new Date()));
    expect(status.jobs.find((j) => j.name === 'flaky')?.problem).toBe(`last run failed; retrying at ${first.retryAt!.toISOString()}`);

    // Still due (LastCronRun unchanged), but backing off: the next tick leaves it alone.
    expect(await rig.runtime.detection.execute()).toEqual([]);

    const manual = await rig.run('flaky');
    expect(manual).toMatchObject({ trigger: 'manual', outcome: 'Failed' });
    const second = await store.getRunState('flaky');
    expect(second.failures).toBe(2);
    expect(second.retryAt!.getTime() - manual.endedAt.getTime()).toBeGreaterThanOrEqual(59_000);

    await store.updateRunState('flaky', { retryAt: new Date(Date.now() - 1000) });
    rig.bus.disarm();
    const [recovered] = await rig.runtime.detection.execute();
    expect(recovered).toMatchObject({ outcome: 'Succeeded', detected: 3 });
    expect(recovered.retryAt).toBeUndefined();
    expect(await store.getRunState('flaky')).toEqual({ resume: null, failures: 0, retryAt: null, running: null });
    expect((await buildStatus(rig.runtime, new HostStats(new Date()))).jobs.find((j) => j.name === 'flaky')?.problem).toBeUndefined();
  });
});
