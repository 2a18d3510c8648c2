import type { ItemOutcome, TargetBatch } from '../../../../connectors/base/target-batch';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import { describeEngine, ENGINE_NAMES, openEngine, type SqlTestEngine } from './sql-test-engines';

/** `SqlTarget.applyBatch` against real databases: per-item outcomes of one transaction per group. */
const job = { name: 'orders' } as Job;
let tables = 0;

function mappingFor(table: string, key = 'code', responseFrom?: string): Mapping {
  return {
    name: table, source: { entity: 'src', key: ['id'] }, target: { entity: table, key: [key] }, fields: [],
    responseMapping: responseFrom ? [{ from: responseFrom, to: 'erp_number' }] : undefined,
  };
}

function message(key: JsonValue, fields: Record<string, JsonValue>, changeTracker = 'x', keyName = 'code'): QueueMessage {
  return createQueueMessage({ jobName: 'orders', action: JobActionType.NewUpdate, sourceKey: String(key), targetKey: { [keyName]: key }, changeTracker, fields });
}

function batchOf(mapping: Mapping, messages: QueueMessage[], extra: Partial<TargetBatch> = {}): TargetBatch {
  return { job, mapping, action: JobActionType.NewUpdate, messages, responseMapping: mapping.responseMapping, ...extra };
}

const statuses = (outcomes: ItemOutcome[]) => outcomes.map((o) => o.status);
const errorName = (o: ItemOutcome) => (o.status === 'failed' ? (o.error as Error).name : undefined);

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`SqlTarget.applyBatch on ${name}`, () => {
    let db: SqlTestEngine;
    const sqlite = name === 'sqlite';
    beforeAll(async () => {
      db = await openEngine(name);
    });
    afterAll(() => db?.close());

    /** A fresh orders table (customer FK, CHECK, NOT NULL, a generated number) and its customer table. */
    async function ordersTable(): Promise<string> {
      const t = `orders_${++tables}`;
      await db.exec(`CREATE TABLE ${t}_customer (id TEXT PRIMARY KEY)`);
      await db.insert(`${t}_customer`, [{ id: 'C1' }]);
      await db.exec(
        sqlite
          ? `CREATE TABLE ${t} (doc_no INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, customer_id TEXT REFERENCES ${t}_customer(id), ` +
              `amount REAL NOT NULL CHECK (amount >= 0), note TEXT) STRICT`
          : `CREATE TABLE ${t} (doc_no bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, code TEXT NOT NULL UNIQUE, ` +
              `customer_id TEXT REFERENCES ${t}_customer(id), amount numeric(12,2) NOT NULL CHECK (amount >= 0), note TEXT)`,
      );
      return t;
    }

    it('applies 500 rows with 4 bad ones: each bad item fails alone with its kind, the others are applied and return their number', async () => {
      const t = await ordersTable();
      const bad: Record<number, Record<string, JsonValue>> = {
        17: { amount: -1 }, // CHECK
        120: { amount: null }, // NOT NULL
        250: { amount: 'abc' }, // not a number
        499: { customer_id: 'NOPE' }, // missing parent
      };
      const messages = Array.from({ length: 500 }, (_, i) => message(`A-${i}`, { code: `A-${i}`, customer_id: 'C1', amount: i, note: `n${i}`, ...bad[i] }));
      const outcomes = await db.target().applyBatch(batchOf(mappingFor(t, 'code', 'doc_no'), messages));
      expect(outcomes).toHaveLength(500);
      const failed = outcomes.flatMap((o, i) => (o.status === 'failed' ? [[i, errorName(o)]] : []));
      expect(failed).toEqual([[17, 'PermanentError'], [120, 'PermanentError'], [250, 'PermanentError'], [499, 'TransitiveError']]);
      const rows = await db.select(`SELECT doc_no, code FROM ${t}`);
      expect(rows).toHaveLength(496);
      const numberOf = new Map(rows.map((r) => [r.code, String(r.doc_no)]));
      outcomes.forEach((o, i) => {
        if (o.status === 'applied') expect(String(o.returned?.doc_no)).toBe(numberOf.get(`A-${i}`));
      });
    });

    it('updates existing rows with a partial column set and inserts only the missing ones', async () => {
      const t = await ordersTable();
      await db.insert(t, [{ code: 'P-1', amount: 5, note: 'old' }, { code: 'P-2', amount: 7, note: 'old' }]);
      const mapping = mappingFor(t, 'code', 'doc_no');
      const outcomes = await db.target().applyBatch(
        batchOf(mapping, [message('P-1', { note: 'new 1' }), message('P-9', { note: 'no amount' }), message('P-2', { note: 'new 2' }), message('P-3', { amount: 3 })]),
      );
      expect(statuses(outcomes)).toEqual(['applied', 'failed', 'applied', 'applied']);
      expect(errorName(outcomes[1])).toBe('PermanentError'); // an INSERT without the NOT NULL amount
      const rows = await db.select(`SELECT code, amount, note, doc_no FROM ${t} ORDER BY code`);
      expect(rows.map((r) => [r.code, Number(r.amount), r.note])).toEqual([['P-1', 5, 'new 1'], ['P-2', 7, 'new 2'], ['P-3', 3, null]]);
      expect(outcomes.map((o) => (o.status === 'applied' ? String(o.returned?.doc_no) : '-'))).toEqual([String(rows[0].doc_no), '-', String(rows[1].doc_no), String(rows[2].doc_no)]);
    });

    it('applies a child before its parent in one group; a missing parent fails only its item (transitive)', async () => {
      const t = `category_${++tables}`;
      await db.exec(`CREATE TABLE ${t} (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES ${t}(id), label TEXT)`);
      const mapping = mappingFor(t, 'id');
      const m = (id: string, parent: string | null) => message(id, { parent_id: parent, label: id }, 'x', 'id');
      const outcomes = await db.target().applyBatch(batchOf(mapping, [m('child', 'root'), m('orphan', 'missing'), m('root', null), m('grandchild', 'child')]));
      expect(statuses(outcomes)).toEqual(['applied', 'failed', 'applied', 'applied']);
      expect(errorName(outcomes[1])).toBe('TransitiveError');
      expect((await db.select(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual(['child', 'grandchild', 'root']);
    });

    it('fails a message without a key value (null or missing) alone, as a PermanentError', async () => {
      const t = await ordersTable();
      const keyless = createQueueMessage({ jobName: 'orders', action: JobActionType.NewUpdate, sourceKey: 'k', targetKey: {}, changeTracker: 'x', fields: { amount: 1 } });
      const outcomes = await db.target().applyBatch(batchOf(mappingFor(t), [message(null, { amount: 1 }), keyless, message('K-1', { amount: 1 })]));
      expect(outcomes.map(errorName)).toEqual(['PermanentError', 'PermanentError', undefined]);
      expect(await db.select(`SELECT code FROM ${t}`)).toEqual([{ code: 'K-1' }]);
    });

    it('deletes a group (missing rows are no error)', async () => {
      const t = await ordersTable();
      await db.insert(t, Array.from({ length: 10 }, (_, i) => ({ code: `D-${i}`, amount: i })));
      const deletes = ['D-1', 'D-404', 'D-3', 'D-5'].map((code) => ({ ...message(code, {}), action: JobActionType.Delete }));
      const outcomes = await db.target().applyBatch(batchOf(mappingFor(t), deletes as QueueMessage[], { action: JobActionType.Delete }));
      expect(statuses(outcomes)).toEqual(['applied', 'applied', 'applied', 'applied']);
      expect((await db.select(`SELECT code FROM ${t} ORDER BY code`)).map((r) => r.code)).toEqual(['D-0', 'D-2', 'D-4', 'D-6', 'D-7', 'D-8', 'D-9']);
    });

    it('with a version check refuses an older change and applies newer, equal and missing ones', async () => {
      const t = `versioned_${++tables}`;
      await db.exec(`CREATE TABLE ${t} (code TEXT PRIMARY KEY, payload TEXT, modified_at ${db.timestampType})`);
      await db.insert(t, ['V-old', 'V-eq', 'V-new', 'V-null'].map((code) => ({ code, payload: 'before', modified_at: code === 'V-null' ? null : '2026-03-01T10:00:00.000Z' })));
      const target = db.target(db.connection({ versionField: 'modified_at' }));
      const m = (code: string, tracker: string) => message(code, { payload: `after ${tracker}` }, tracker);
      const batch = batchOf(mappingFor(t), [m('V-old', '2026-03-01T09:59:59.999Z'), m('V-eq', '2026-03-01T10:00:00Z'), m('V-new', '2026-03-01T10:00:00.001Z'), m('V-null', '2020-01-01T00:00:00Z'), m('V-missing', '2020-01-01T00:00:00Z')], {
        versionCheck: { type: 'datetime' },
      });
      const outcomes = await target.applyBatch(batch);
      expect(statuses(outcomes)).toEqual(['outdated', 'applied', 'applied', 'applied', 'applied']);
      expect(new Date((outcomes[0] as { targetVersion: string }).targetVersion).toISOString()).toBe('2026-03-01T10:00:00.000Z');
      const rows = await db.select(`SELECT code, payload FROM ${t} ORDER BY code`);
      expect(rows.map((r) => [r.code, r.payload])).toEqual([
        ['V-eq', 'after 2026-03-01T10:00:00Z'], ['V-missing', 'after 2020-01-01T00:00:00Z'], ['V-new', 'after 2026-03-01T10:00:00.001Z'],
        ['V-null', 'after 2020-01-01T00:00:00Z'], ['V-old', 'before'],
      ]);
      await expect(db.target().applyBatch(batch)).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining('set settings.versionField') });
    });

    it('rejects the group when the table is missing (a configuration error, nothing applied)', async () => {
      await expect(db.target().applyBatch(batchOf(mappingFor('no_such_table'), [message('X', { amount: 1 })]))).rejects.toMatchObject({ name: 'ConfigError' });
    });
  });
}
