import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { CURRENT_TRACKERS_READ_SIZE } from '../../../../connectors/sql/sql-current-trackers';
import { describeEngine, ENGINE_NAMES, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

const job: Job = {
  name: 'stock', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'stock',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 500, lookbackSeconds: 0,
};
// A composite key whose text part holds the separator: the source key escapes it.
const mapping: Mapping = {
  name: 'stock',
  source: { entity: 'stock', key: ['item', 'site'] },
  target: { entity: 'stock', key: ['item', 'site'] },
  fields: [{ target: 'item', source: 'item' }, { target: 'site', source: 'site' }, { target: 'qty', source: 'qty' }],
};
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const canonical = (second: number) => `${at(second).slice(0, 19)}.0000000Z`;
// Beyond 2^53: a key that went through a JS number would name another record.
const BIG = '9007199254740993';

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`current change trackers by key on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
    });
    afterAll(() => db?.close());

    beforeEach(async () => {
      await db.exec('DROP TABLE IF EXISTS stock');
      await db.exec(`CREATE TABLE stock (item BIGINT NOT NULL, site TEXT NOT NULL, qty INTEGER, modified ${db.timestampType}, PRIMARY KEY (item, site))`);
      await db.insert('stock', [
        { item: BigInt(BIG), site: 'north|1', qty: 1, modified: at(1) },
        { item: 7, site: 'south', qty: 2, modified: at(2) },
        { item: 8, site: 'south', qty: 3, modified: at(3) },
        { item: 9, site: 'west', qty: 4, modified: at(4) },
      ]);
    });

    /** The source keys as detection builds them (a real run over the table). */
    async function detectedKeys(): Promise<string[]> {
      const { messages } = await readRun(db.source(), mapping, job, WatermarkValue.initialize('datetime', null));
      return messages.map((m) => m.sourceKey);
    }

    it('reads the canonical tracker detection would send; a changed record shows its newer one, a deleted one is absent', async () => {
      const keys = await detectedKeys();
      expect(keys).toEqual([`${BIG}|north\\|1`, '7|south', '8|south', '9|west']);
      await db.exec(`UPDATE stock SET qty = 20, modified = '${db.timestamp(at(20))}' WHERE item = 7`);
      await db.exec('DELETE FROM stock WHERE item = 8');
      const current = await db.source().currentTrackers!(mapping, job, [...keys, '404|nowhere']);
      expect(current).toEqual(new Map([[`${BIG}|north\\|1`, canonical(1)], ['7|south', canonical(20)], ['9|west', canonical(4)]]));
    });

    it('answers null for a record outside the job filter now (its newer change is not sent)', async () => {
      const keys = await detectedKeys();
      const filtered: Job = { ...job, filter: [{ field: 'qty', op: 'lt', value: 4 }] };
      const current = (await db.source().currentTrackers!(mapping, filtered, keys))!;
      expect(current.get('9|west')).toBeNull();
      expect(current.get('7|south')).toBe(canonical(2));
    });

    it(`reads more records than one statement holds (${CURRENT_TRACKERS_READ_SIZE} a statement)`, async () => {
      const many = Array.from({ length: 2 * CURRENT_TRACKERS_READ_SIZE + 5 }, (_, i) => ({ item: 1000 + i, site: 'bulk', qty: i, modified: at(30) }));
      await db.insert('stock', many);
      const keys = many.map((r) => `${r.item}|bulk`);
      const current = (await db.source().currentTrackers!(mapping, job, keys))!;
      expect(current.size).toBe(many.length);
      expect(new Set(current.values())).toEqual(new Set([canonical(30)]));
    });
  });
}

describeEngine('sqlite')('current change trackers on SQLite columns as they are found', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('sqlite');
  });
  afterAll(() => db?.close());

  it('finds integer keys in a column of no declared type, and reads text stamps in any form SQLite reads', async () => {
    // No affinity: SQLite compares the stored integer with a text parameter as unequal.
    await db.exec('CREATE TABLE loose (id, modified)');
    await db.insert('loose', [{ id: BigInt(BIG), modified: '2026-01-01 02:00:00+02:00' }, { id: 5, modified: '2026-01-01T00:00:05Z' }]);
    const loose: Mapping = { name: 'loose', source: { entity: 'loose', key: ['id'] }, target: { entity: 'loose', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] };
    const { messages } = await readRun(db.source(), loose, job, WatermarkValue.initialize('datetime', null));
    const detected = new Map(messages.map((m) => [m.sourceKey, m.changeTracker]));
    expect(detected).toEqual(new Map([[BIG, canonical(0)], ['5', canonical(5)]]));
    expect(await db.source().currentTrackers!(loose, job, [...detected.keys()])).toEqual(detected);
  });
});
