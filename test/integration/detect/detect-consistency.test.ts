import type { QueueMessage } from '../../../src/model/queue-message';
import { accountJob, accountMapping, accountRows, at, createAccounts, summary, tracker } from './detect-rig';
import { hookedRegistry, type PageHook } from './faults';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES } from './source-db';

/**
 * Watermark consistency through the real runtime: rows changing while a run reads, and equal
 * change trackers across page boundaries, with and without a lookback window.
 */
describe.each(ENGINES)('detection consistency on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);
    const hooks: { afterPage?: PageHook } = {};
    afterEach(() => {
      hooks.afterPage = undefined;
    });

    const open = (mappings: object[], jobs: object[]) =>
      suite.open({ mappings, jobs, registry: hookedRegistry(hooks) });
    const keys = (messages: QueueMessage[]) => messages.map((m) => m.sourceKey);

    it('rows updated during a read: none lost (moved rows are read by the next run)', async () => {
      await createAccounts(suite.db, 'during');
      await suite.db.insert('during', accountRows('D', 1, 9, 1, 1)); // D-0000n at minute n
      const rig = await open([accountMapping('during', 'during')], [accountJob('during', 'during', { pageSize: 3 })]);
      hooks.afterPage = async (_page, index) => {
        if (index !== 0) return;
        await suite.db.exec(`UPDATE during SET name = 'changed', modified_at = '${at(20)}' WHERE id = 'D-00002'`); // already read
        await suite.db.exec(`UPDATE during SET name = 'moved', modified_at = '${at(21)}' WHERE id = 'D-00006'`); // not read yet
        await suite.db.insert('during', [
          { id: 'D-00010', name: 'after the bound', modified_at: at(22) },
          { id: 'D-00011', name: 'inside the bound', modified_at: at(5.5) },
        ]);
      };

      const first = await rig.run('during');
      expect(first).toMatchObject({ outcome: 'Succeeded', detected: 9, watermarkAfter: tracker(9) });
      expect(summary(await rig.take())).toEqual([
        ['D-00001', 'NewUpdate', tracker(1)],
        ['D-00002', 'NewUpdate', tracker(2)],
        ['D-00003', 'NewUpdate', tracker(3)],
        ['D-00004', 'NewUpdate', tracker(4)],
        ['D-00005', 'NewUpdate', tracker(5)],
        ['D-00011', 'NewUpdate', tracker(5.5)],
        ['D-00007', 'NewUpdate', tracker(7)],
        ['D-00008', 'NewUpdate', tracker(8)],
        ['D-00009', 'NewUpdate', tracker(9)],
      ]);

      hooks.afterPage = undefined;
      expect(await rig.run('during')).toMatchObject({ outcome: 'Succeeded', detected: 3, watermarkBefore: tracker(9), watermarkAfter: tracker(22) });
      const second = await rig.take();
      expect(summary(second)).toEqual([
        ['D-00002', 'NewUpdate', tracker(20)],
        ['D-00006', 'NewUpdate', tracker(21)],
        ['D-00010', 'NewUpdate', tracker(22)],
      ]);
      expect(second.map((m) => m.fields.name)).toEqual(['CHANGED', 'MOVED', 'AFTER THE BOUND']);
    });

    it('equal timestamps across page boundaries: none lost, none repeated beyond the lookback', async () => {
      await createAccounts(suite.db, 'ties');
      const rows = [
        ...accountRows('E', 1, 2, 0, 0), // minute 0
        ...accountRows('E', 3, 7, 10, 0), // minute 10: pages of 3 split this group (E-3 | E-4 … E-6 | E-7)
        ...accountRows('E', 8, 8, 10.5, 0),
      ];
      await suite.db.insert('ties', rows);
      const rig = await open(
        [accountMapping('ties', 'ties')],
        [
          accountJob('ties-exact', 'ties', { pageSize: 3 }),
          accountJob('ties-lookback', 'ties', { pageSize: 3, lookbackSeconds: 60 }),
        ],
      );
      const all = rows.map((r) => r.id);
      expect(await rig.run('ties-exact')).toMatchObject({ detected: 8, watermarkAfter: tracker(10.5) });
      expect(keys(await rig.take())).toEqual(all);
      expect(await rig.run('ties-lookback')).toMatchObject({ detected: 8, watermarkAfter: tracker(10.5) });
      expect(keys(await rig.take())).toEqual(all);

      // A late commit with an already passed timestamp, and a new change.
      await suite.db.insert('ties', [
        { id: 'E-00009', name: 'late', modified_at: at(10) },
        { id: 'E-00010', name: 'new', modified_at: at(11) },
      ]);
      expect(await rig.run('ties-exact')).toMatchObject({ detected: 1, watermarkAfter: tracker(11) });
      expect(summary(await rig.take())).toEqual([['E-00010', 'NewUpdate', tracker(11)]]);

      // Lookback 60 s behind 10:10:30: re-reads what changed after 10:09:30, nothing older. The
      // repeats carry the message ids of their first send, so the bus drops them as duplicates.
      rig.bus.takeHanded();
      expect(await rig.run('ties-lookback')).toMatchObject({ detected: 8, watermarkBefore: tracker(10.5), watermarkAfter: tracker(11) });
      const reread = rig.bus.takeHanded();
      expect(keys(reread)).toEqual(['E-00003', 'E-00004', 'E-00005', 'E-00006', 'E-00007', 'E-00009', 'E-00008', 'E-00010']);
      expect(reread.every((m) => m.changeTracker > tracker(9.5))).toBe(true);
      expect(keys(await rig.take())).toEqual(['E-00009', 'E-00010']);
    });

    it('every row in one instant, paged by key: each read exactly once', async () => {
      await createAccounts(suite.db, 'instant');
      const rows = accountRows('N', 1, 7, 3, 0);
      await suite.db.insert('instant', rows);
      const rig = await open([accountMapping('instant', 'instant')], [accountJob('instant', 'instant', { pageSize: 2 })]);
      expect(await rig.run('instant')).toMatchObject({ detected: 7, watermarkAfter: tracker(3) });
      expect(keys(await rig.take())).toEqual(rows.map((r) => r.id));
      expect(await rig.run('instant')).toMatchObject({ detected: 0, watermarkAfter: tracker(3) });
    });
  });
});
