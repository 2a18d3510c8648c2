import { accountJob, accountMapping, accountRows, createAccounts, tracker } from './detect-rig';
import { detectSuite } from './detect-suite';
import { describeEngine, ENGINES } from './source-db';

/** `accountMapping` whose city is looked up in `cities` (name → code), failing the row when there is none. */
function cityCodeMapping(name: string, table: string): object {
  const mapping = accountMapping(name, table) as { fields: object[] };
  return {
    ...mapping,
    fields: [
      ...mapping.fields.filter((f) => (f as { target: string }).target !== 'city'),
      { target: 'city', source: 'city', resolver: { entity: `${table}_cities`, matchField: 'name', returnField: 'code', onMissing: 'error' } },
    ],
  };
}

/**
 * `skipFailedRows`: a row that cannot become a message (a resolver with onMissing: error, a
 * message over the queue's size limit) stops the run without it, and is skipped and recorded
 * with it, through the real runtime on each engine.
 */
describe.each(ENGINES)('skipped rows on %s', (engine) => {
  describeEngine(engine)(engine, () => {
    const suite = detectSuite(engine);

    async function citiesSource(table: string): Promise<void> {
      await createAccounts(suite.db, table);
      await suite.db.exec(`CREATE TABLE "${table}_cities" (name TEXT PRIMARY KEY, code TEXT NOT NULL)`);
      await suite.db.insert(`${table}_cities`, [{ name: 'Berlin', code: 'BER' }]);
      const rows = accountRows('R', 1, 3, 1, 1);
      rows[1].city = 'Atlantis';
      await suite.db.insert(table, rows);
    }

    const missing = 'mapping "m": field "city": no {T}_cities record with name = "Atlantis"';

    it('without skipFailedRows a resolver miss stops the run at the row and the watermark holds', async () => {
      const table = `skip_off_${engine}`;
      await citiesSource(table);
      const rig = await suite.open({ mappings: [cityCodeMapping('m', table)], jobs: [accountJob('j', 'm')] });
      const run = await rig.run('j');
      expect(run).toMatchObject({ outcome: 'Failed', error: missing.replace('{T}', table), watermarkAfter: null });
      expect(run.skipped).toBeUndefined();
    });

    it('an empty-string source key stops the run like a NULL key: nothing after it is sent, the watermark holds', async () => {
      const table = `skip_empty_${engine}`;
      await createAccounts(suite.db, table);
      const rows = accountRows('E', 1, 3, 1, 1);
      rows[1].id = '';
      await suite.db.insert(table, rows);
      const rig = await suite.open({ mappings: [accountMapping('m', table)], jobs: [accountJob('empty', 'm')] });
      const run = await rig.run('empty');
      expect(run).toMatchObject({ outcome: 'Failed', error: 'mapping "m": source key field "id" is empty', watermarkAfter: null });
      expect((await rig.take()).map((m) => m.sourceKey)).not.toContain('');
      expect((await rig.watermark('empty')).watermark).toBeNull();
      await suite.db.exec(`UPDATE "${table}" SET id = 'E-00002' WHERE id = ''`);
      const fixed = await rig.run('empty');
      expect(fixed).toMatchObject({ outcome: 'Succeeded', watermarkAfter: tracker(3) });
    });

    it('with skipFailedRows the row is skipped and recorded, the others are sent, the watermark moves past it', async () => {
      const table = `skip_on_${engine}`;
      await citiesSource(table);
      const rig = await suite.open({
        mappings: [cityCodeMapping('m', table)],
        jobs: [accountJob('j', 'm', { skipFailedRows: true })],
      });
      const run = await rig.run('j');
      const skippedRow = { sourceKey: 'R-00002', changeTracker: tracker(2), error: missing.replace('{T}', table) };
      expect(run).toMatchObject({ outcome: 'Succeeded', detected: 3, skipped: 1, skippedRows: [skippedRow], watermarkAfter: tracker(3) });
      expect((await rig.take()).map((m) => [m.sourceKey, m.fields.city])).toEqual([
        ['R-00001', 'BER'],
        ['R-00003', 'BER'],
      ]);
      const [record] = await rig.runtime.runLog.latest('j');
      expect(record).toMatchObject({ outcome: 'Succeeded', skipped: 1, skippedRows: [skippedRow] });

      const again = await rig.run('j');
      expect(again).toMatchObject({ outcome: 'Succeeded', detected: 0, watermarkBefore: tracker(3) });
      expect(again.skipped).toBeUndefined();
    });

    it('with skipFailedRows a row too large for the queue is skipped, the rest of its batch still goes out', async () => {
      const table = `skip_big_${engine}`;
      await createAccounts(suite.db, table);
      const rows = accountRows('B', 1, 3, 1, 1);
      rows[0].city = 'x'.repeat(300 * 1024);
      await suite.db.insert(table, rows);
      const job = (skipFailedRows: boolean) => accountJob(skipFailedRows ? 'skips' : 'stops', 'm', { skipFailedRows });
      const rig = await suite.open({ mappings: [accountMapping('m', table)], jobs: [job(false), job(true)] });

      const stopped = await rig.run('stops');
      expect(stopped).toMatchObject({ outcome: 'Failed', watermarkAfter: null });
      expect(stopped.error).toMatch(/^message of job 'stops' for source key 'B-00001' is too large for queue 'sbqnormal': its body is \d+ bytes, over/);

      const run = await rig.run('skips');
      expect(run).toMatchObject({ outcome: 'Succeeded', detected: 3, skipped: 1, sentByQueue: { sbqnormal: 2 }, watermarkAfter: tracker(3) });
      expect(run.skippedRows?.[0]).toMatchObject({ sourceKey: 'B-00001', changeTracker: tracker(1) });
      expect(run.skippedRows?.[0].error).toMatch(/^message of job 'skips' for source key 'B-00001' is too large for queue 'sbqnormal'/);
      expect((await rig.take()).filter((m) => m.jobName === 'skips').map((m) => m.sourceKey)).toEqual(['B-00002', 'B-00003']);
    });
  });
});
