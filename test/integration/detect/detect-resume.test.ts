import type { QueueMessage } from '../../../src/model/queue-message';
import { accountJob, accountMapping, accountRows, createAccounts } from './detect-rig';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES } from './source-db';

/**
 * Long initial loads through the real runtime (Azurite tables, local bus, real SQL source): runs
 * stopped by their time budget leave a resume cursor, the next run continues after it, and the
 * load ends with every source row sent. Size: `HIGHWATER_RESUME_ROWS`, else 1 000 000 under
 * `HIGHWATER_SOAK=1` (`npm run test:soak`), else 20 000.
 */
const ROWS = Number(process.env.HIGHWATER_RESUME_ROWS ?? (process.env.HIGHWATER_SOAK === '1' ? 1_000_000 : 20_000));
const PAGE = Math.max(1000, Math.ceil(ROWS / 5));

describe.each(ENGINES)('resumable runs on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);
    const saved = process.env.HIGHWATER_RESUME_CHECKPOINT_SECONDS;
    beforeAll(() => (process.env.HIGHWATER_RESUME_CHECKPOINT_SECONDS = '0'));
    afterAll(() => (saved === undefined ? delete process.env.HIGHWATER_RESUME_CHECKPOINT_SECONDS : (process.env.HIGHWATER_RESUME_CHECKPOINT_SECONDS = saved)));

    const counts = (messages: QueueMessage[]) => {
      const seen = new Map<string, number>();
      for (const m of messages) seen.set(m.sourceKey, (seen.get(m.sourceKey) ?? 0) + 1);
      return seen;
    };

    it(`a ${ROWS}-row initial load cut by its time budget into at least 3 runs: every row sent, no gap, no repeat at a clean cut`, async () => {
      await createAccounts(suite.db, 'big');
      const rows = accountRows('B', 1, ROWS, 0, 1 / 600);
      for (let from = 0; from < ROWS; from += 5000) await suite.db.insert('big', rows.slice(from, from + 5000));
      const rig = await suite.open({ mappings: [accountMapping('big', 'big')], jobs: [accountJob('big', 'big', { pageSize: PAGE })] });
      await rig.runtime.init.ensureInitialized();
      const job = rig.runtime.init.getJob('big');
      const store = rig.runtime.runStates;
      await store.updateRunState('big', { failures: 2 }); // a run that makes progress ends a backoff
      const started = Date.now();
      const runs = [];
      const sent: QueueMessage[] = [];
      // A deadline already passed: each run reads one page, flushes, saves its cursor and stops.
      for (let i = 0; i < 50; i++) {
        const run = await rig.runtime.detection.runJob(job, { trigger: 'scheduled', deadline: new Date(0) });
        runs.push(run);
        if (i === 0) expect(await store.getRunState('big')).toMatchObject({ failures: 0, running: null, resume: { rows: PAGE } });
        // What was handed to the bus (the bus's duplicate detection would hide repeats from `take`).
        for (const handed of rig.bus.takeHanded()) sent.push(handed); // not push(...): a run hands over 100k+
        await rig.take();
        if (!run.stoppedEarly) break;
      }
      const ms = Date.now() - started;
      console.log(`${engine}: ${ROWS} rows in ${runs.length} runs, ${ms} ms (${Math.round((ROWS / ms) * 1000)} rows/s incl. taking from the bus)`);

      expect(runs.length).toBeGreaterThanOrEqual(3);
      expect(runs.map((r) => [r.outcome, r.stoppedEarly ?? null, r.resumed ?? false])).toEqual([
        ['Succeeded', 'timeBudget', false],
        ...runs.slice(1, -1).map(() => ['Succeeded', 'timeBudget', true]),
        ['Succeeded', null, true],
      ]);
      // Stopped runs keep the watermark (the spec's rule); the finished run writes it.
      expect(runs.slice(0, -1).every((r) => r.watermarkAfter === r.watermarkBefore)).toBe(true);
      const seen = counts(sent);
      expect(seen.size).toBe(ROWS);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      const record = await rig.watermark('big');
      expect(record.watermark).toBe(runs[runs.length - 1].watermarkAfter);
      expect(record.watermark).toBe(rows[ROWS - 1].modified_at.replace(/Z$/, '0000Z'));
      expect(await store.getRunState('big')).toEqual({ resume: null, failures: 0, retryAt: null, running: null });
      const logged = await rig.runtime.runLog.latest('big', runs.length);
      expect(logged.filter((r) => r.stoppedEarly === 'timeBudget')).toHaveLength(runs.length - 1);
    }, 3_600_000);

    it('a run that fails after a checkpoint resumes after the last flushed page: repeats only what was sent after it', async () => {
      await createAccounts(suite.db, 'cut');
      const rows = accountRows('C', 1, 2000, 0, 1 / 60);
      await suite.db.insert('cut', rows);
      const rig = await suite.open({ mappings: [accountMapping('cut', 'cut')], jobs: [accountJob('cut', 'cut', { pageSize: 250 })] });
      rig.bus.arm(3); // batches of 200: 600 rows go out, then the bus is down
      const failed = await rig.run('cut');
      expect(failed).toMatchObject({ outcome: 'Failed', error: 'test fault: bus down after 3 batches' });
      const first = rig.bus.takeHanded();
      await rig.take();
      rig.bus.disarm();
      const state = await rig.runtime.runStates.getRunState('cut');
      // Pages of 250, flushed at each checkpoint: page 1 goes out as batches 1 and 2 (200 + 50), and
      // the cursor is saved after it; page 2's batch 3 goes out, its closing flush (batch 4) fails.
      expect(first).toHaveLength(450);
      expect(state.resume).toMatchObject({ sourceKey: 'C-00250', rows: 250, changeTracker: rows[249].modified_at.replace(/Z$/, '0000Z') });
      expect(state.failures).toBe(1);

      const resumed = await rig.run('cut');
      expect(resumed).toMatchObject({ outcome: 'Succeeded', resumed: true, detected: 1750 });
      const second = rig.bus.takeHanded();
      expect(second).toHaveLength(1750);
      expect(second[0].sourceKey).toBe('C-00251');
      const seen = counts([...first, ...second]);
      expect(seen.size).toBe(2000);
      // Sent before the failure but after the last checkpoint: sent again, nothing else.
      expect([...seen].filter(([, n]) => n > 1).map(([k]) => k)).toEqual(first.slice(250).map((m) => m.sourceKey));
      expect(await rig.runtime.runStates.getRunState('cut')).toEqual({ resume: null, failures: 0, retryAt: null, running: null });
    });

    it('a run that never recorded its end is listed as cut off by the next run', async () => {
      await createAccounts(suite.db, 'killed');
      await suite.db.insert('killed', accountRows('K', 1, 3, 0, 1));
      const rig = await suite.open({ mappings: [accountMapping('killed', 'killed')], jobs: [accountJob('killed', 'killed')] });
      const startedAt = new Date('2026-01-01T10:00:00.000Z');
      const heartbeatAt = new Date('2026-01-01T10:00:05.000Z');
      await rig.runtime.runStates.updateRunState('killed', { running: { startedAt, trigger: 'scheduled', heartbeatAt } });

      const run = await rig.run('killed');
      expect(run).toMatchObject({ outcome: 'Succeeded', detected: 3 });
      const [latest, cutOff] = await rig.runtime.runLog.latest('killed');
      expect(latest.startedAt).toEqual(run.startedAt);
      expect(cutOff).toMatchObject({
        trigger: 'scheduled', startedAt, endedAt: heartbeatAt, outcome: 'Failed', interrupted: true,
        error: 'the run did not record its end (killed, timed out, or still running elsewhere); last sign of life 2026-01-01T10:00:05.000Z',
      });
    });
  });
});
