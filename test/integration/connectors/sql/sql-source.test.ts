import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, ENGINE_NAMES, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

const job: Job = {
  name: 'orders', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'orders',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
const mapping: Mapping = {
  name: 'orders',
  source: { entity: 'orders', key: ['id'] },
  target: { entity: 'sales_order', key: ['number'] },
  fields: [
    { target: 'number', source: 'id' },
    { target: 'customer', source: 'customer', operations: [{ op: 'upper' }] },
    { target: 'region', source: 'customer', resolver: { entity: 'customers', matchField: 'name', returnField: 'region' } },
  ],
};
const at = (second: number, ms = 0) => new Date(Date.UTC(2026, 0, 1, 0, 0, second, ms)).toISOString();
const ids = (messages: Array<{ sourceKey: string }>) => messages.map((m) => Number(m.sourceKey));
const fresh = () => WatermarkValue.initialize('datetime', null);

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`SqlSource on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
      await db.exec(`CREATE TABLE customers (name TEXT PRIMARY KEY, region TEXT)`);
      await db.insert('customers', [{ name: 'ann', region: 'north' }, { name: "O'Brien", region: 'west' }]);
    });
    afterAll(() => db?.close());

    /** A fresh orders table per test (same name, dropped before). */
    async function orders(rows: Array<{ id: number; customer?: string; modified: string; deleted?: boolean }>) {
      await db.exec(`DROP TABLE IF EXISTS orders; CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, deleted ${db.booleanType}, modified ${db.timestampType})`);
      await db.insert('orders', rows.map((r) => ({ customer: 'ann', deleted: false, ...r })));
    }

    it('loads everything first, then only what changed', async () => {
      await orders([1, 2, 3, 4, 5].map((id) => ({ id, modified: at(id) })));
      const source = db.source();
      const watermark = fresh();
      const first = await readRun(source, mapping, job, watermark);
      expect(first.pages.map((p) => [p.rowCount, p.hasMore])).toEqual([[2, true], [2, true], [1, false]]);
      expect(ids(first.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(first.messages[0]).toMatchObject({
        action: 'NewUpdate', targetKey: { number: 1 }, fields: { number: 1, customer: 'ANN', region: 'north' },
        changeTracker: '2026-01-01T00:00:01.0000000Z',
      });
      expect(first.pages[2].lastChangeTracker).toBe('2026-01-01T00:00:05.0000000Z');
      expect(watermark.value).toBe('2026-01-01T00:00:05.0000000Z');

      await db.exec(`UPDATE orders SET customer = 'nobody', modified = '${db.timestamp(at(7))}' WHERE id = 2`);
      await db.insert('orders', [{ id: 6, modified: at(6) }]);
      const second = await readRun(source, mapping, job, watermark);
      expect(ids(second.messages)).toEqual([6, 2]);
      expect(second.messages[1].fields).toEqual({ number: 2, customer: 'NOBODY', region: null });
      expect((await readRun(source, mapping, job, watermark)).messages).toEqual([]);
    });

    it('loses no row that changes while a run reads', async () => {
      await orders([1, 2, 3, 4, 5, 6].map((id) => ({ id, modified: at(id) })));
      const source = db.source();
      const watermark = fresh();
      const seen: Array<[number, string]> = [];
      let pages = 0;
      for await (const page of source.retrieveChanges(mapping, job, watermark)) {
        if (pages++ === 0) {
          // While the run reads: an unread row and a read row change, a new row arrives.
          await db.exec(`UPDATE orders SET modified = '${db.timestamp(at(20))}' WHERE id IN (1, 5)`);
          await db.insert('orders', [{ id: 7, modified: at(21) }]);
        }
        for (const m of page.messages) {
          seen.push([Number(m.sourceKey), m.changeTracker]);
          watermark.advance(m.changeTracker);
        }
      }
      expect(seen.map(([id]) => id)).toEqual([1, 2, 3, 4, 6]);
      const next = await readRun(source, mapping, job, watermark);
      expect(next.messages.map((m) => [Number(m.sourceKey), m.changeTracker])).toEqual([
        [1, '2026-01-01T00:00:20.0000000Z'],
        [5, '2026-01-01T00:00:20.0000000Z'],
        [7, '2026-01-01T00:00:21.0000000Z'],
      ]);
    });

    it('continues equal timestamps across page boundaries by key, re-reading only within the lookback', async () => {
      await orders([...[5, 3, 1, 4, 2].map((id) => ({ id, modified: at(30) })), { id: 9, modified: at(10) }]);
      const source = db.source();
      const watermark = fresh();
      const run = await readRun(source, mapping, job, watermark);
      expect(ids(run.messages)).toEqual([9, 1, 2, 3, 4, 5]);
      expect((await readRun(source, mapping, job, watermark)).messages).toEqual([]);
      const lookback = await readRun(source, mapping, { ...job, lookbackSeconds: 5 }, watermark);
      expect(ids(lookback.messages)).toEqual([1, 2, 3, 4, 5]);
    });

    it('resumes a run from a page cursor (durable path)', async () => {
      await orders([1, 2, 3].map((id) => ({ id, modified: at(id) })));
      const source = db.source();
      const iterator = source.retrieveChanges(mapping, job, fresh())[Symbol.asyncIterator]();
      const page1 = (await iterator.next()).value;
      await iterator.return?.();
      await db.insert('orders', [{ id: 4, modified: at(40) }]);
      const rest = [];
      for await (const page of source.retrieveChanges(mapping, job, fresh(), { cursor: page1.cursor })) rest.push(...page.messages);
      expect([ids(page1.messages), ids(rest)]).toEqual([[1, 2], [3]]);
    });

    it('sends tombstone rows and soft-deleted rows as Delete messages', async () => {
      await db.exec(`DROP TABLE IF EXISTS order_tombstones; CREATE TABLE order_tombstones (id INTEGER PRIMARY KEY, deleted_at ${db.timestampType})`);
      await db.insert('order_tombstones', [{ id: 8, deleted_at: at(1) }]);
      const tombstones: Mapping = { name: 'del', source: { entity: 'order_tombstones', key: ['id'] }, target: { entity: 'sales_order', key: ['number'] }, fields: [{ target: 'number', source: 'id' }] };
      const deleteJob: Job = { ...job, action: JobActionType.Delete, watermark: { type: 'datetime', field: 'deleted_at' } };
      const deleted = await readRun(db.source(), tombstones, deleteJob, fresh());
      expect(deleted.messages.map((m) => [m.action, m.targetKey])).toEqual([['Delete', { number: 8 }]]);

      await orders([{ id: 1, modified: at(1) }, { id: 2, modified: at(2), deleted: true }]);
      const soft = await readRun(db.source(), mapping, { ...job, softDelete: { field: 'deleted', op: 'eq', value: true } }, fresh());
      expect(soft.messages.map((m) => [m.sourceKey, m.action])).toEqual([['1', 'NewUpdate'], ['2', 'Delete']]);
    });

    it('binds filter values, so an injection attempt stays a value', async () => {
      await orders([{ id: 1, customer: "O'Brien", modified: at(1) }, { id: 2, modified: at(2) }]);
      const source = db.source();
      const filtered = (filter: Job['filter']) => readRun(source, mapping, { ...job, filter }, fresh()).then((r) => ids(r.messages));
      expect(await filtered([{ field: 'customer', op: 'eq', value: "x' OR '1'='1" }])).toEqual([]);
      expect(await filtered([{ field: 'customer', op: 'eq', value: "x'; DROP TABLE orders; --" }])).toEqual([]);
      expect(await filtered([{ field: 'customer', op: 'eq', value: "O'Brien" }])).toEqual([1]);
      expect(await filtered([{ field: 'customer', op: 'in', value: ['ann', 'zed'] }, { field: 'deleted', op: 'eq', value: false }])).toEqual([2]);
      expect(await db.select('SELECT count(*) AS n FROM orders')).toEqual([{ n: name === 'sqlite' ? 2 : '2' }]);
      await expect(filtered([{ field: 'customer"; --', op: 'eq', value: 1 }])).rejects.toMatchObject({ name: 'ConfigError' });
    });

    it('stops a run at a row whose related record is missing when onMissing is transitive', async () => {
      await orders([{ id: 1, customer: 'nobody', modified: at(1) }]);
      const strict: Mapping = { ...mapping, fields: [mapping.fields[0], { ...mapping.fields[2], resolver: { ...mapping.fields[2].resolver!, onMissing: 'transitive' } }] };
      await expect(readRun(db.source(), strict, job, fresh())).rejects.toMatchObject({
        name: 'TransitiveError', message: 'mapping "orders": field "region": no customers record with name = "nobody"',
      });
    });
  });
}
