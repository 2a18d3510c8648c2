import { runGetChangesActivity } from '../../../src/detect/durable/get-changes-activity';
import { DurableDriver } from '../../../src/host/durable-driver';
import { activityDependencies } from '../../../src/runtime/runtime-dependencies';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * The durable detection path reading an outbox (SQLite; local durable driver, local bus, Azurite):
 * each activity claims a page of 3, sends it and marks its rows, so the orchestration ends on an
 * empty claim, every row processed once, and a second orchestration finds nothing.
 */
describe('durable detection from an outbox', () => {
  let f: SyncFixture;
  beforeEach(async () => {
    f = await createSyncFixture({}, (config) => {
      config.connections.push({ name: 'crm-outbox', type: 'sqlite', settings: { file: './crm.db', outbox: { table: 'outbox' } } } as never);
      config.mappings.push({
        name: 'outbox-account-to-customer',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [{ target: 'crm_id', source: 'id' }, { target: 'name', source: 'name' }, { target: 'city', source: 'city' }],
      } as never);
      config.jobs.push({ name: 'outbox-accounts', order: 40, schedule: '0 */5 * * * *', source: 'crm-outbox', target: 'erp', mapping: 'outbox-account-to-customer', priority: 'high', watermark: { type: 'number', field: 'id' } } as never);
    });
    f.crm.exec(`CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_key TEXT NOT NULL, action TEXT NOT NULL, payload TEXT,
      created_at TEXT, claimed_at TEXT, processed_at TEXT, dead_reason TEXT)`);
  });
  afterEach(async () => {
    await f.close();
  });

  it('claims, sends and marks page by page; a second orchestration finds nothing', async () => {
    const insert = f.crm.prepare("INSERT INTO outbox (aggregate_key, action, payload) VALUES (?, 'upsert', ?)");
    for (let i = 1; i <= 7; i++) insert.run(`O-${i}`, JSON.stringify({ id: `O-${i}`, name: `Outbox ${i}`, city: 'Köln' }));
    const driver = new DurableDriver({ activity: (input) => runGetChangesActivity(activityDependencies(f.runtime), input) });
    try {
      const first = await driver.waitForCompletion(driver.start({ jobs: ['outbox-accounts'] }));
      expect(first.output?.jobs).toEqual([{ jobName: 'outbox-accounts', outcome: 'Succeeded', pages: 3, detected: 7, sent: 7, watermark: '7' }]);
      expect(f.crm.prepare('SELECT count(*) AS n FROM outbox WHERE processed_at IS NOT NULL').get()).toEqual({ n: 7 });
      expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(7);

      const second = await driver.waitForCompletion(driver.start({ jobs: ['outbox-accounts'] }));
      expect(second.output?.jobs).toEqual([{ jobName: 'outbox-accounts', outcome: 'Succeeded', pages: 1, detected: 0, sent: 0, watermark: '0' }]);
      const results = await f.drain();
      expect(results.map((r) => r.outcome)).toEqual(Array(7).fill('Success'));
      expect(f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'O-%'").get()).toEqual({ n: 7 });
    } finally {
      await driver.close();
    }
  });
});
