import type { QueueMessage } from '../../../src/model/queue-message';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES, type SourceDb } from './source-db';

/**
 * An outbox table read by the real runtime (local bus, Azurite tables): a run sends the free rows
 * and marks them processed only after they are on the bus; a run cut off between the send and
 * the mark leaves them claimed, and once the claim ran out they go again under the same message
 * ids (the bus drops the copies); a dead row is set aside and reported, the rest go on.
 */
describe.each(ENGINES)('detection from an outbox on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);
    let n = 0;
    let table: string;

    const ddl = (db: SourceDb, t: string) =>
      db.engine === 'sqlite'
        ? `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_key TEXT NOT NULL, action TEXT NOT NULL, payload TEXT, created_at TEXT, claimed_at TEXT, processed_at TEXT, dead_reason TEXT)`
        : `CREATE TABLE ${t} (id bigserial PRIMARY KEY, aggregate_key text NOT NULL, action text NOT NULL, payload jsonb, created_at timestamptz DEFAULT now(), claimed_at timestamptz, processed_at timestamptz, dead_reason text)`;
    const write = (keys: string[], payload = (key: string) => JSON.stringify({ id: key, name: `name ${key}` })) =>
      suite.db.insert(table, keys.map((key) => ({ aggregate_key: key, action: 'upsert', payload: payload(key) })));
    const states = async () =>
      (await suite.db.select(`SELECT id, processed_at IS NOT NULL AS done, dead_reason FROM ${table} ORDER BY id`)).map((r) => [Number(r.id), Boolean(r.done), r.dead_reason]);
    const outboxJob = (name: string) => ({ name, schedule: '0 */5 * * * *', source: 'outbox', target: 'outbox', mapping: 'accounts', priority: 'normal', watermark: { type: 'number', field: 'id' }, pageSize: 4 });
    const open = (jobs = ['outbox-accounts']) =>
      suite.open({
        connections: [{ ...suite.db.connection('outbox'), settings: { ...suite.db.connection('outbox').settings, outbox: { table } } }],
        mappings: [{ name: 'accounts', source: { entity: 'account', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields: [{ target: 'crm_id', source: 'id' }, { target: 'name', source: 'name' }] }],
        jobs: jobs.map(outboxJob),
      });
    const keys = (messages: QueueMessage[]) => messages.map((m) => m.sourceKey);

    beforeEach(async () => {
      table = `detect_outbox_${++n}`;
      await suite.db.exec(ddl(suite.db, table));
    });

    it('sends every row once and marks it; a dead row is set aside, reported, and does not block the rest', async () => {
      await write(['a', 'b', 'c']);
      await suite.db.insert(table, [{ aggregate_key: 'd', action: 'rename', payload: JSON.stringify({ id: 'd', name: 'x' }) }]);
      await write(['e', 'f']);
      const rig = await open();
      // A dry run looks without claiming: the real run after it gets every row.
      await rig.runtime.init.ensureInitialized();
      const dry = await rig.runtime.detection.runJob(rig.runtime.init.getJob('outbox-accounts'), { dryRun: true, limit: 100 });
      expect(dry.preview?.map((m) => m.sourceKey)).toEqual(['a', 'b', 'c', 'e', 'f']);
      expect(await states()).toEqual([1, 2, 3, 4, 5, 6].map((id) => [id, false, null]));
      const first = await rig.run('outbox-accounts');
      expect(first).toMatchObject({ outcome: 'Succeeded', detected: 6, skipped: 1, sentByQueue: { sbqnormal: 5 } });
      expect(first.skippedRows?.[0]).toMatchObject({ sourceKey: 'd', error: 'outbox row 4 set aside (dead_reason): action "rename" is not an action of the outbox (known: insert, update, upsert, delete)' });
      expect(keys(await rig.take())).toEqual(['a', 'b', 'c', 'e', 'f']);
      expect(await states()).toEqual([
        [1, true, null], [2, true, null], [3, true, null],
        [4, false, 'action "rename" is not an action of the outbox (known: insert, update, upsert, delete)'],
        [5, true, null], [6, true, null],
      ]);
      // Written while nothing runs, read by the next run alone.
      await write(['a']);
      expect(await rig.run('outbox-accounts')).toMatchObject({ outcome: 'Succeeded', detected: 1 });
      expect((await rig.take()).map((m) => [m.sourceKey, m.changeTracker])).toEqual([['a', '7']]);
    });

    it('two runs reading the outbox at once: each row sent by one of them, none twice, none left', async () => {
      const keysWritten = Array.from({ length: 40 }, (_, i) => `k${String(i + 1).padStart(2, '0')}`);
      await write(keysWritten);
      // Two jobs on one outbox stand for two hosts: their runs overlap, each claiming pages.
      const rig = await open(['outbox-a', 'outbox-b']);
      const [a, b] = await Promise.all([rig.run('outbox-a'), rig.run('outbox-b')]);
      expect([a.outcome, b.outcome]).toEqual(['Succeeded', 'Succeeded']);
      expect(a.detected + b.detected).toBe(40);
      expect([a.detected > 0, b.detected > 0]).toEqual([true, true]);
      const taken = keys(await rig.take());
      expect([...taken].sort()).toEqual(keysWritten);
      expect((await states()).every(([, done]) => done)).toBe(true);
    });

    it('a run cut off between send and mark: the rows go again once their claim ran out, under the same ids, none lost', async () => {
      await write(['a', 'b', 'c', 'd', 'e', 'f']);
      // The mark fails as if the process died right after the send.
      if (suite.db.engine === 'sqlite') {
        await suite.db.exec(`CREATE TRIGGER ${table}_cut BEFORE UPDATE OF processed_at ON ${table} BEGIN SELECT RAISE(ABORT, 'cut off before the mark'); END`);
      } else {
        await suite.db.exec(`CREATE FUNCTION ${table}_cut() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'cut off before the mark'; END $$`);
        await suite.db.exec(`CREATE TRIGGER ${table}_cut BEFORE UPDATE OF processed_at ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_cut()`);
      }
      const rig = await open();
      const cut = await rig.run('outbox-accounts');
      expect(cut).toMatchObject({ outcome: 'Failed', sentByQueue: { sbqnormal: 4 } });
      expect(cut.error).toContain('cut off before the mark');
      expect(keys(rig.bus.takeHanded())).toEqual(['a', 'b', 'c', 'd']);
      expect(keys(await rig.take())).toEqual(['a', 'b', 'c', 'd']);
      await suite.db.exec(engine === 'sqlite' ? `DROP TRIGGER ${table}_cut` : `DROP TRIGGER ${table}_cut ON ${table}`);

      // While the claim holds, the cut-off rows stay with their reader; the others go.
      expect(await rig.run('outbox-accounts')).toMatchObject({ outcome: 'Succeeded', detected: 2 });
      expect(keys(await rig.take())).toEqual(['e', 'f']);
      expect(keys(rig.bus.takeHanded())).toEqual(['e', 'f']);
      // The claim runs out (as the lease does, see the connector's tests with a fake clock).
      await suite.db.exec(`UPDATE ${table} SET claimed_at = '2000-01-01T00:00:00.000Z' WHERE processed_at IS NULL`);
      expect(await rig.run('outbox-accounts')).toMatchObject({ outcome: 'Succeeded', detected: 4, sentByQueue: { sbqnormal: 4 } });
      expect(keys(rig.bus.takeHanded())).toEqual(['a', 'b', 'c', 'd']);
      // Same message ids: the bus drops the resend, the receiver sees each change once.
      expect(await rig.take()).toEqual([]);
      expect((await states()).every(([, done]) => done)).toBe(true);
    });
  });
});
