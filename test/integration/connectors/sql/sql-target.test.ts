import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import { describeEngine, ENGINE_NAMES, openEngine, type SqlTestEngine } from './sql-test-engines';

const mapping: Mapping = {
  name: 'orders',
  source: { entity: 'crm_orders', key: ['id'] },
  target: { entity: 'sales_order', key: ['code'] },
  fields: [],
  responseMapping: [{ from: 'doc_no', to: 'erp_number' }],
};
const job = { name: 'orders', actionName: 'apply_discount' } as Job;
const message = (fields: Record<string, JsonValue>, action: QueueMessage['action'] = JobActionType.NewUpdate) =>
  createQueueMessage({ jobName: 'orders', action, sourceKey: String(fields.code), targetKey: { code: fields.code ?? null }, changeTracker: 'x', fields });

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`SqlTarget on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
      const generated = name === 'sqlite' ? 'INTEGER PRIMARY KEY' : 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY';
      await db.exec(`CREATE TABLE customer (id TEXT PRIMARY KEY)`);
      await db.exec(
        `CREATE TABLE sales_order (doc_no ${generated}, code TEXT NOT NULL UNIQUE, customer_id TEXT REFERENCES customer(id), ` +
          `amount NUMERIC NOT NULL CHECK (amount >= 0), note TEXT, modified ${db.timestampType})`,
      );
      await db.insert('customer', [{ id: 'C1' }]);
    });
    afterAll(() => db?.close());

    it('inserts, then updates by the target key, returning the generated number both times', async () => {
      const target = db.target();
      const inserted = await target.upsert(message({ code: 'A-1', customer_id: 'C1', amount: 10, note: 'first' }), mapping, { responseMapping: mapping.responseMapping });
      const updated = await target.upsert(message({ code: 'A-1', customer_id: 'C1', amount: 12, note: null }), mapping, { responseMapping: mapping.responseMapping });
      expect(updated).toEqual(inserted);
      expect(Number(inserted.returned?.doc_no)).toBeGreaterThan(0);
      const rows = await db.select(`SELECT code, amount, note FROM sales_order WHERE code = 'A-1'`);
      expect(rows.map((r) => [r.code, Number(r.amount), r.note])).toEqual([['A-1', 12, null]]);
      expect(await target.upsert(message({ code: 'A-2', amount: 1 }), mapping)).toEqual({});
    });

    it('applies interleaved mappings and field sets on one target to the right rows (statements are cached per shape)', async () => {
      await db.exec(`CREATE TABLE contact (email TEXT PRIMARY KEY, name TEXT, phone TEXT)`);
      const contacts: Mapping = { name: 'contacts', source: { entity: 'crm_contact', key: ['id'] }, target: { entity: 'contact', key: ['email'] }, fields: [] };
      const contact = (fields: Record<string, JsonValue>) =>
        createQueueMessage({ jobName: 'contacts', action: JobActionType.NewUpdate, sourceKey: String(fields.email), targetKey: { email: fields.email }, changeTracker: 'x', fields });
      const target = db.target();
      for (let round = 1; round <= 2; round++) {
        await target.upsert(message({ code: `S-${round}`, amount: round, note: `note ${round}` }), mapping);
        await target.upsert(contact({ email: `c${round}@x`, name: `Name ${round}` }), contacts);
        // Another field set of each mapping: only these columns change.
        await target.upsert(message({ code: `S-${round}`, note: `changed ${round}` }), mapping);
        await target.upsert(contact({ email: `c${round}@x`, phone: `0${round}` }), contacts);
      }
      // The same fields with and without returned fields.
      const returned = await target.upsert(message({ code: 'S-1', note: 'again' }), mapping, { responseMapping: mapping.responseMapping });
      expect(Object.keys(returned.returned ?? {})).toEqual(['doc_no']);
      expect(await target.upsert(message({ code: 'S-1', note: 'again' }), mapping)).toEqual({});
      const orders = await db.select(`SELECT code, amount, note FROM sales_order WHERE code LIKE 'S-%' ORDER BY code`);
      expect(orders.map((r) => [r.code, Number(r.amount), r.note])).toEqual([['S-1', 1, 'again'], ['S-2', 2, 'changed 2']]);
      expect(await db.select(`SELECT email, name, phone FROM contact ORDER BY email`)).toEqual([
        { email: 'c1@x', name: 'Name 1', phone: '01' },
        { email: 'c2@x', name: 'Name 2', phone: '02' },
      ]);
    });

    it('reports an invalid field on every message and a missing key value also for a known field set', async () => {
      const target = db.target();
      for (let i = 0; i < 2; i++) {
        await expect(target.upsert(message({ code: 'I-1', amount: 1, 'bad-name': 1 }), mapping)).rejects.toMatchObject({
          name: 'ConfigError', message: 'mapping "orders": target field: "bad-name" is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit)',
        });
      }
      await target.upsert(message({ code: 'I-2', amount: 1 }), mapping);
      const keyless = createQueueMessage({ jobName: 'orders', action: JobActionType.NewUpdate, sourceKey: 'I-3', targetKey: {}, changeTracker: 'x', fields: { code: undefined as unknown as JsonValue, amount: 1 } });
      await expect(target.upsert(keyless, mapping)).rejects.toMatchObject({ name: 'PermanentError', message: expect.stringContaining('has no value for target key field "code"') });
    });

    it('writes a field named __proto__ to a column of that name, like any other field', async () => {
      const fields = JSON.parse('{"code":"P-1","amount":1,"__proto__":"x"}') as Record<string, JsonValue>;
      await expect(db.target().upsert(message(fields), mapping)).rejects.toMatchObject({
        name: 'ConfigError', message: expect.stringContaining('a column does not exist'),
      });
    });

    it('deletes by key, and deleting a missing record succeeds', async () => {
      const target = db.target();
      await target.upsert(message({ code: 'D-1', amount: 1 }), mapping);
      await target.delete(message({ code: 'D-1' }, JobActionType.Delete), mapping);
      await target.delete(message({ code: 'D-1' }, JobActionType.Delete), mapping);
      expect(await db.select(`SELECT code FROM sales_order WHERE code = 'D-1'`)).toEqual([]);
    });

    it('reports a missing referenced record as transitive and constraint violations as permanent', async () => {
      const target = db.target();
      await expect(target.upsert(message({ code: 'F-1', customer_id: 'C9', amount: 1 }), mapping)).rejects.toMatchObject({
        name: 'TransitiveError',
        message: expect.stringContaining('"sales_order": a referenced record is missing (foreign key) ('),
      });
      await expect(target.upsert(message({ code: 'N-1', amount: null }), mapping)).rejects.toMatchObject({
        name: 'PermanentError', message: expect.stringContaining('a required field is null'),
      });
      await expect(target.upsert(message({ code: 'K-1', amount: -5 }), mapping)).rejects.toMatchObject({
        name: 'PermanentError', message: expect.stringContaining('a check constraint failed'),
      });
      await expect(target.upsert(message({ code: 'X-1', amount: 1, nope: 1 }), mapping)).rejects.toMatchObject({
        name: 'ConfigError', message: expect.stringContaining('a column does not exist'),
      });
      await expect(target.upsert(message({ code: 'M-1', amount: 1 }), { ...mapping, target: { entity: 'missing_table', key: ['code'] } })).rejects.toMatchObject({
        name: 'ConfigError', message: expect.stringContaining('the table does not exist'),
      });
      await expect(target.upsert(message({ code: 'M-1', amount: 1, note: 'n' }), { ...mapping, target: { entity: 'sales_order', key: ['note'] } })).rejects.toMatchObject({
        name: 'ConfigError', message: expect.stringContaining('the target key is not the primary key or a unique index'),
      });
    });

    it('reads the target version from the configured column', async () => {
      const target = db.target(db.connection({ versionField: 'modified' }));
      await target.upsert(message({ code: 'V-1', amount: 1, modified: '2026-01-02T03:04:05.123Z' }), mapping);
      expect(await target.getTargetVersion(message({ code: 'V-1' }), mapping)).toBe('2026-01-02T03:04:05.123Z');
      expect(await target.getTargetVersion(message({ code: 'V-404' }), mapping)).toBeNull();
      await expect(db.target().getTargetVersion(message({ code: 'V-1' }), mapping)).rejects.toMatchObject({
        name: 'ConfigError', message: `connection "${db.connection().name}": skipOutdatedMessages needs the target's version column: set settings.versionField`,
      });
    });

    it('invokes a database function with named parameters where the engine has them', async () => {
      const target = db.target();
      const invoke = createQueueMessage({
        jobName: 'orders', action: JobActionType.InvokeAction, sourceKey: 'A-1', targetKey: { code: 'A-1' }, changeTracker: 'x',
        fields: {}, actionParameters: { p_code: 'A-1', p_percent: 50 },
      });
      if (name === 'sqlite' || name === 'mysql') {
        // MySQL procedures take positional parameters only: no named call to build.
        await expect(target.invokeAction(invoke, job)).rejects.toMatchObject({ name: 'ConfigError', message: `job "orders": connector type ${name} has no actions to invoke` });
        return;
      }
      await db.exec(
        `CREATE FUNCTION apply_discount(p_code text, p_percent numeric) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS ` +
          `$$ UPDATE sales_order SET amount = amount * (100 - p_percent) / 100 WHERE code = p_code $$`,
      );
      await target.invokeAction(invoke, job);
      expect((await db.select(`SELECT amount FROM sales_order WHERE code = 'A-1'`)).map((r) => Number(r.amount))).toEqual([6]);
    });
  });
}
