import { accountJob, accountMapping, accountRows, at, createAccounts, summary, tracker } from './detect-rig';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES } from './source-db';

/**
 * Detection through the real runtime (SQL source → serialize → ServiceBusService → local bus,
 * watermark in Azurite): full load, incremental loads, deletions.
 */
describe.each(ENGINES)('detection loads on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);

    const open = (mappings: object[], jobs: object[]) => suite.open({ mappings, jobs });

    it('first full load: every row once in change order, the watermark at the newest, a run record', async () => {
      await createAccounts(suite.db, 'full_load');
      const rows = accountRows('F', 1, 7, 0, 1);
      rows[3].modified_at = rows[2].modified_at; // equal timestamps inside the load
      await suite.db.insert('full_load', rows);
      const rig = await open([accountMapping('full-load', 'full_load')], [accountJob('full-load', 'full-load', { pageSize: 3, priority: 'high' })]);

      const run = await rig.run('full-load');
      expect(run).toMatchObject({
        jobName: 'full-load', trigger: 'manual', outcome: 'Succeeded', detected: 7, timeStamps: 0,
        sentByQueue: { sbqhigh: 7 }, watermarkBefore: null, watermarkAfter: tracker(6),
      });
      const sent = await rig.take();
      expect(summary(sent)).toEqual(rows.map((r) => [r.id, 'NewUpdate', r.modified_at.replace(/Z$/, '0000Z')]));
      expect(sent[0]).toMatchObject({ jobName: 'full-load', targetKey: { crm_id: 'F-00001' }, fields: { crm_id: 'F-00001', name: 'NAME 1', city: 'Berlin' } });
      expect(await rig.watermark('full-load')).toEqual({ jobName: 'full-load', watermark: tracker(6), lastCronRun: run.startedAt, persisted: true, resync: null });

      const [record] = await rig.runtime.runLog.latest('full-load');
      expect(record).toEqual(run);
    });

    it('incremental load: only rows changed since the watermark; an idle run sends nothing and keeps it', async () => {
      await createAccounts(suite.db, 'incremental');
      await suite.db.insert('incremental', accountRows('I', 1, 3, 0, 1));
      const rig = await open([accountMapping('incremental', 'incremental')], [accountJob('incremental', 'incremental', { pageSize: 2 })]);
      expect((await rig.run('incremental')).detected).toBe(3);
      expect(await rig.take()).toHaveLength(3);

      const idle = await rig.run('incremental');
      expect(idle).toMatchObject({ outcome: 'Succeeded', detected: 0, sentByQueue: {}, watermarkBefore: tracker(2), watermarkAfter: tracker(2) });
      expect(await rig.take()).toEqual([]);

      await suite.db.exec(`UPDATE incremental SET name = 'renamed', modified_at = '${at(10)}' WHERE id = 'I-00002'`);
      await suite.db.insert('incremental', [{ id: 'I-00004', name: 'new', city: 'Bonn', modified_at: at(11) }]);
      const next = await rig.run('incremental');
      expect(next).toMatchObject({ detected: 2, sentByQueue: { sbqnormal: 2 }, watermarkBefore: tracker(2), watermarkAfter: tracker(11) });
      const sent = await rig.take();
      expect(summary(sent)).toEqual([
        ['I-00002', 'NewUpdate', tracker(10)],
        ['I-00004', 'NewUpdate', tracker(11)],
      ]);
      expect(sent[0].fields).toEqual({ crm_id: 'I-00002', name: 'RENAMED', city: 'Berlin' });
      expect((await rig.watermark('incremental')).watermark).toBe(tracker(11));
    });

    it('deletions: tombstone rows and soft-deleted rows become Delete messages', async () => {
      await suite.db.exec(`CREATE TABLE tombstones (id TEXT PRIMARY KEY, deleted_at ${suite.db.types.timestamp} NOT NULL)`);
      await suite.db.insert('tombstones', [{ id: 'T-1', deleted_at: at(1) }, { id: 'T-2', deleted_at: at(2) }]);
      await createAccounts(suite.db, 'soft');
      await suite.db.insert('soft', [
        { id: 'S-1', name: 'kept', modified_at: at(1), is_deleted: false },
        { id: 'S-2', name: 'gone', modified_at: at(2), is_deleted: true },
      ]);
      const tombstoneMapping = { name: 'tombstones', source: { entity: 'tombstones', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields: [{ target: 'crm_id', source: 'id' }] };
      const rig = await open(
        [tombstoneMapping, accountMapping('soft', 'soft')],
        [
          accountJob('tombstones', 'tombstones', { action: 'Delete', priority: 'low', watermark: { type: 'datetime', field: 'deleted_at' } }),
          accountJob('soft', 'soft', { softDelete: { field: 'is_deleted', op: 'eq', value: true } }),
        ],
      );
      expect(await rig.run('tombstones')).toMatchObject({ outcome: 'Succeeded', detected: 2, sentByQueue: { sbqlow: 2 } });
      expect(await rig.run('soft')).toMatchObject({ outcome: 'Succeeded', detected: 2, sentByQueue: { sbqnormal: 2 } });
      const sent = await rig.take();
      expect(summary(sent)).toEqual([
        ['S-1', 'NewUpdate', tracker(1)],
        ['S-2', 'Delete', tracker(2)],
        ['T-1', 'Delete', tracker(1)],
        ['T-2', 'Delete', tracker(2)],
      ]);
      expect(sent.find((m) => m.sourceKey === 'T-1')).toMatchObject({ targetKey: { crm_id: 'T-1' } });

      await suite.db.exec(`UPDATE soft SET is_deleted = ${suite.db.engine === 'postgres' ? 'true' : '1'}, modified_at = '${at(5)}' WHERE id = 'S-1'`);
      await suite.db.insert('tombstones', [{ id: 'T-3', deleted_at: at(5) }]);
      await rig.run('soft');
      await rig.run('tombstones');
      expect(summary(await rig.take())).toEqual([
        ['S-1', 'Delete', tracker(5)],
        ['T-3', 'Delete', tracker(5)],
      ]);
    });
  });
});
