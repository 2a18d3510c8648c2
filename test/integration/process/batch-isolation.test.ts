import { TransientError } from '../../../src/platform/errors';
import { FaultInjection, faultInjectingRegistry } from '../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * One bad row must not hold good ones: 500 contacts processed in batches, one breaking a CHECK
 * constraint, one whose account is missing, one whose target write fails transiently. The 497
 * others are applied; the CHECK violation is dead-lettered at once, the orphan parked, the
 * transient one retried by a scheduled copy.
 */
describe('failure isolation within a batch', () => {
  let f: SyncFixture;
  const faults = new FaultInjection();

  beforeAll(async () => {
    f = await createSyncFixture({ registry: faultInjectingRegistry(faults) });
    f.erp.exec(`DROP TABLE contacts;
      CREATE TABLE contacts (crm_id TEXT PRIMARY KEY, customer_crm_id TEXT NOT NULL REFERENCES customers(crm_id),
        full_name TEXT NOT NULL CHECK (length(full_name) <= 40));`);
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  it('applies 497 of 500, dead-letters one at once, parks one, retries one', async () => {
    f.erp.prepare("INSERT INTO customers (crm_id, name, modified_at) VALUES ('A-1', 'ACME', '2026-01-01T00:00:00.000Z')").run();
    const insert = f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)');
    f.crm.transaction(() => {
      for (let i = 1; i <= 500; i++) {
        const id = `C-${String(i).padStart(3, '0')}`;
        const last = id === 'C-100' ? 'x'.repeat(60) : 'Lovelace';
        insert.run(id, id === 'C-200' ? 'A-MISSING' : 'A-1', 'Ada', last, `2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z`);
      }
    })();
    faults.plan = {
      beforeTargetCall: (call) => {
        if (call.sourceKey === 'C-300') throw new TransientError('ETIMEDOUT talking to the ERP');
      },
    };
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    const results = await f.drain();
    faults.plan = {};
    const by = (d: string) => results.filter((r) => r.disposition === d).length;
    expect(results).toHaveLength(500);
    expect({ completed: by('completed'), deadLettered: by('deadLettered'), transitive: by('transitive'), retried: by('retried') }).toEqual({
      completed: 497,
      deadLettered: 1,
      transitive: 1,
      retried: 1,
    });
    expect(f.erp.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: 497 });
    const queues = f.settings.queues;
    const [dead] = await f.runtime.bus.peek(queues.work.normal, { subQueue: 'deadLetter' });
    expect(dead.applicationProperties).toMatchObject({ SourceKey: 'C-100', ErrorType: 'PermanentError' });
    const [parked] = await f.runtime.bus.peek(queues.transitive.normal);
    expect(parked.applicationProperties).toMatchObject({ SourceKey: 'C-200', ErrorType: 'TransitiveError' });
    const [retry] = await f.runtime.bus.peek(queues.work.normal);
    expect(retry.applicationProperties).toMatchObject({ SourceKey: 'C-300', Attempt: 2 });
    expect(retry.scheduledEnqueueTime!.getTime()).toBeGreaterThan(Date.now());
  });
});
