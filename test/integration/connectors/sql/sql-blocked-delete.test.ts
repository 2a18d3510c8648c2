import type { ItemOutcome, TargetBatch } from '../../../../connectors/base/target-batch';
import { DEPENDENT_RECORDS_REASON } from '../../../../connectors/sql/blocked-delete';
import { errorKind } from '../../../../src/platform/errors';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type QueueMessage } from '../../../../src/model/queue-message';
import { describeEngine, ENGINE_NAMES, openEngine, type SqlTestEngine } from './sql-test-engines';

/**
 * A DELETE refused by a foreign key (the customer still has contacts) is a
 * permanent error "dependent records exist", not the transitive "a referenced record is missing"
 * that an insert with a missing parent gets — on the single-message path and in batches.
 */
const job = { name: 'customers-delete' } as Job;
let tables = 0;

const mappingFor = (table: string): Mapping => ({ name: table, source: { entity: 'src', key: ['id'] }, target: { entity: table, key: ['id'] }, fields: [] });

function del(id: string): QueueMessage {
  return createQueueMessage({ jobName: job.name, action: JobActionType.Delete, sourceKey: id, targetKey: { id }, changeTracker: 'x', fields: {} });
}

const failure = (o: ItemOutcome) => (o.status === 'failed' ? (o.error as Error) : undefined);

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`a delete blocked by dependent rows on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
    });
    afterAll(() => db?.close());

    /** customer C1 has a contact, C2 has none; plus a self-referencing hierarchy table. */
    async function tablesWithContacts(): Promise<{ customers: string; contacts: string }> {
      const t = `blocked_${++tables}`;
      await db.exec(`CREATE TABLE ${t}_customer (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES ${t}_customer(id))`);
      await db.exec(`CREATE TABLE ${t}_contact (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES ${t}_customer(id))`);
      await db.insert(`${t}_customer`, [{ id: 'C1' }, { id: 'C2' }, { id: 'P1' }, { id: 'K1', parent_id: 'P1' }]);
      await db.insert(`${t}_contact`, [{ id: 'K-1', customer_id: 'C1' }]);
      return { customers: `${t}_customer`, contacts: `${t}_contact` };
    }

    it('one message: PermanentError with the dependent-records reason, the driver code kept, the row still there', async () => {
      const { customers } = await tablesWithContacts();
      const error = await db.target().delete(del('C1'), mappingFor(customers)).then(
        () => undefined,
        (err: unknown) => err as Error & { details?: Record<string, unknown> },
      );
      expect(error?.name).toBe('PermanentError');
      expect(errorKind(error)).toBe('permanent');
      const code = { sqlite: 'SQLITE_CONSTRAINT_FOREIGNKEY', postgres: '23503', mysql: '1451' }[name];
      expect(error?.message).toContain(`${customers}": ${DEPENDENT_RECORDS_REASON} (${code}): `);
      expect(error?.message).not.toContain('a referenced record is missing');
      expect(error?.details).toMatchObject({ code, reason: 'dependentRecords' });
      expect(await db.select(`SELECT id FROM ${customers} WHERE id = 'C1'`)).toEqual([{ id: 'C1' }]);
    });

    it('an insert with a missing parent is still transitive (the reclassification is for deletes only)', async () => {
      const { contacts } = await tablesWithContacts();
      const insert = createQueueMessage({ jobName: 'contacts', action: JobActionType.NewUpdate, sourceKey: 'K-9', targetKey: { id: 'K-9' }, changeTracker: 'x', fields: { customer_id: 'C404' } });
      await expect(db.target().upsert(insert, mappingFor(contacts))).rejects.toMatchObject({
        name: 'TransitiveError', message: expect.stringContaining('a referenced record is missing (foreign key)'),
      });
    });

    it('in a batch: the blocked delete fails alone as permanent, the others are applied', async () => {
      const { customers } = await tablesWithContacts();
      const batch: TargetBatch = { job, mapping: mappingFor(customers), action: JobActionType.Delete, messages: [del('C1'), del('C2')] };
      const outcomes = await db.target().applyBatch!(batch);
      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'applied']);
      expect(failure(outcomes[0])?.name).toBe('PermanentError');
      expect(failure(outcomes[0])?.message).toContain(DEPENDENT_RECORDS_REASON);
      expect(await db.select(`SELECT id FROM ${customers} WHERE id IN ('C1', 'C2') ORDER BY id`)).toEqual([{ id: 'C1' }]);
    });

    it('in a batch: a parent deleted before its child in the same group is applied (the transitive re-pass runs first)', async () => {
      const { customers } = await tablesWithContacts();
      const batch: TargetBatch = { job, mapping: mappingFor(customers), action: JobActionType.Delete, messages: [del('P1'), del('K1')] };
      const outcomes = await db.target().applyBatch!(batch);
      expect(outcomes.map((o) => o.status)).toEqual(['applied', 'applied']);
      expect(await db.select(`SELECT id FROM ${customers} WHERE id IN ('P1', 'K1')`)).toEqual([]);
    });
  });
}
