import type { QueueMessage } from '../../../src/model/queue-message';
import { accountJob, accountMapping, accountRows, createAccounts, tracker } from './detect-rig';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES } from './source-db';

/**
 * Failing runs through the real runtime: a source that is down, and runs cut off after some
 * batches were sent but before the watermark write. The watermark never moves on failure, so
 * the next run rereads from the old one (duplicates, never gaps).
 */
describe.each(ENGINES)('detection failures on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);

    const keys = (messages: QueueMessage[]) => messages.map((m) => m.sourceKey);
    const sorted = (values: string[]) => [...values].sort();

    it('a job whose source is down: error recorded, later jobs still run, its watermark unchanged', async () => {
      await createAccounts(suite.db, 'up');
      await suite.db.insert('up', accountRows('U', 1, 2, 1, 1));
      const rig = await suite.open({
        connections: [await suite.db.downConnection('down')],
        mappings: [accountMapping('up', 'up')],
        jobs: [accountJob('down-job', 'up', { order: 10, source: 'down' }), accountJob('up-job', 'up', { order: 20 })],
      });
      const lastCronRun = new Date(Date.now() - 3_600_000);
      await rig.runtime.watermarks.updateWatermarkByJobName('down-job', tracker(1), lastCronRun);

      const runs = await rig.runtime.detection.execute();
      expect(runs.map((r) => [r.jobName, r.trigger, r.outcome, r.detected])).toEqual([
        ['down-job', 'scheduled', 'Failed', 0],
        ['up-job', 'scheduled', 'Succeeded', 2],
      ]);
      const error = runs[0].error ?? '';
      if (engine === 'sqlite') expect(error).toMatch(/^sqlite connection "down": read the maximum of "modified_at" in "up": .*unable to open database file/);
      else expect(error).toMatch(/^postgres connection "down": .*ECONNREFUSED/);
      expect(runs[0]).toMatchObject({ watermarkBefore: tracker(1), watermarkAfter: tracker(1), sentByQueue: {} });
      expect(await rig.watermark('down-job')).toEqual({ jobName: 'down-job', watermark: tracker(1), lastCronRun, persisted: true, resync: null });

      const [record] = await rig.runtime.runLog.latest('down-job');
      expect(record).toMatchObject({ jobName: 'down-job', trigger: 'scheduled', outcome: 'Failed', error, watermarkBefore: tracker(1), watermarkAfter: tracker(1) });
      expect(keys(await rig.take())).toEqual(['U-00001', 'U-00002']);
    });

    it('a run cut off after two batches rereads from the old watermark next time: repeats, none lost', async () => {
      await createAccounts(suite.db, 'cut');
      await suite.db.insert('cut', accountRows('C', 1, 100, 0, 1 / 60));
      const rig = await suite.open({ mappings: [accountMapping('cut', 'cut')], jobs: [accountJob('cut', 'cut')] });
      const loaded = await rig.run('cut');
      expect(loaded).toMatchObject({ outcome: 'Succeeded', detected: 100 });
      const old = loaded.watermarkAfter;
      await rig.take();
      rig.bus.takeHanded();

      const newer = accountRows('C', 101, 1100, 100, 1 / 60);
      await suite.db.insert('cut', newer);
      rig.bus.arm(2); // batches of 200: rows 101-500 go out, then the bus is down
      const cut = await rig.run('cut');
      expect(cut).toMatchObject({ outcome: 'Failed', error: 'test fault: bus down after 2 batches', watermarkBefore: old, watermarkAfter: old });
      expect(cut.sentByQueue).toEqual({ sbqnormal: 400 });
      expect(await rig.watermark('cut')).toMatchObject({ watermark: old, lastCronRun: loaded.startedAt });
      const delivered = await rig.take();
      expect(keys(delivered)).toEqual(newer.slice(0, 400).map((r) => r.id));

      rig.bus.disarm();
      rig.bus.takeHanded();
      const rerun = await rig.run('cut');
      expect(rerun).toMatchObject({ outcome: 'Succeeded', detected: 1000, sentByQueue: { sbqnormal: 1000 }, watermarkBefore: old, watermarkAfter: tracker(100 + 999 / 60) });
      expect(keys(rig.bus.takeHanded())).toEqual(newer.map((r) => r.id)); // from the old watermark, not from the start
      // The repeated 400 carry their first message ids: the bus drops them as duplicates.
      const rest = await rig.take();
      expect(keys(rest)).toEqual(newer.slice(400).map((r) => r.id));
      expect(sorted([...keys(delivered), ...keys(rest)])).toEqual(sorted(newer.map((r) => r.id)));
    });

    it('a run whose watermark write fails sent everything, keeps the old watermark and rereads all of it', async () => {
      await createAccounts(suite.db, 'unsaved');
      const rows = accountRows('W', 1, 50, 0, 1);
      await suite.db.insert('unsaved', rows);
      const rig = await suite.open({ mappings: [accountMapping('unsaved', 'unsaved')], jobs: [accountJob('unsaved', 'unsaved')] });
      rig.storage.failWatermarkWrites = true;
      const failed = await rig.run('unsaved');
      expect(failed).toMatchObject({ outcome: 'Failed', error: 'test fault: storage down before the watermark write', detected: 50, watermarkBefore: null, watermarkAfter: null });
      expect(keys(rig.bus.takeHanded())).toEqual(rows.map((r) => r.id));
      expect(await rig.watermark('unsaved')).toMatchObject({ watermark: null, persisted: false });

      rig.storage.failWatermarkWrites = false;
      const rerun = await rig.run('unsaved');
      expect(rerun).toMatchObject({ outcome: 'Succeeded', detected: 50, watermarkBefore: null, watermarkAfter: tracker(49) });
      expect(keys(rig.bus.takeHanded())).toEqual(rows.map((r) => r.id));
      expect(keys(await rig.take())).toEqual(rows.map((r) => r.id));
      expect((await rig.watermark('unsaved')).watermark).toBe(tracker(49));
    });
  });
});
