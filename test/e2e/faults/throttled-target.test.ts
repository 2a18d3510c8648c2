import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { ConnectorRegistry } from '../../../connectors/base/registry';
import { createOdataConnectorFactory } from '../../../connectors/odata';
import { sqliteConnectorFactory } from '../../../connectors/sql';
import { readSettings } from '../../../src/config/settings';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime';
import { silentLogger } from '../../../src/telemetry/logger';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { FakeClock } from '../../support/fake-clock';
import { MessageDriver, outcomes } from './support/fault-rig';
import { ThrottlingService } from './support/throttling-service';

/**
 * A target that throttles: the real OData connector against a local service answering
 * `429 Too Many Requests` with `Retry-After`, then `204`. The processor abandons the throttled
 * message with the error properties and applies it on redelivery.
 */
describe('throttled target (429 with Retry-After)', () => {
  let azurite: TestAzurite;
  let dir: string;

  beforeAll(async () => {
    azurite = await startTestAzurite();
  });
  afterAll(async () => {
    await azurite?.stop();
  });

  /** A CRM (SQLite) → OData service sync on a fake clock, with one account to send. */
  async function startSync(serviceUrl: string): Promise<{ runtime: Runtime; driver: MessageDriver; crm: Database.Database }> {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-throttle-'));
    const config = {
      connections: [
        { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } },
        { name: 'svc', type: 'odata', settings: { serviceUrl, upsertMode: 'patch' } },
      ],
      mappings: [
        {
          name: 'account-to-customer',
          source: { entity: 'accounts', key: ['id'] },
          target: { entity: 'customers', key: ['crm_id'] },
          fields: [{ target: 'crm_id', source: 'id' }, { target: 'name', source: 'name' }],
        },
      ],
      jobs: [
        { name: 'crm-to-svc', schedule: '0 */5 * * * *', source: 'crm', target: 'svc', mapping: 'account-to-customer', watermark: { type: 'datetime', field: 'modified_at' } },
      ],
    };
    for (const kind of ['connections', 'mappings', 'jobs'] as const) writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
    const crm = new Database(path.join(dir, 'crm.db'));
    crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified_at TEXT NOT NULL)');
    crm.prepare('INSERT INTO accounts VALUES (?, ?, ?)').run('A-1', 'Acme', '2026-01-01T00:00:00.000Z');
    const clock = new FakeClock('2026-03-01T00:00:00Z');
    const runtime = await createRuntime({
      settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, 'data') },
      configDir: dir,
      clock,
      log: silentLogger,
      registry: new ConnectorRegistry([sqliteConnectorFactory, createOdataConnectorFactory()]),
    });
    await runtime.init.ensureInitialized();
    const run = await runtime.detection.runJob(runtime.init.getJob('crm-to-svc'));
    expect([run.outcome, run.error, run.detected]).toEqual(['Succeeded', undefined, 1]);
    return { runtime, driver: new MessageDriver(runtime, clock), crm };
  }

  async function withService(options: ConstructorParameters<typeof Object>[0], test: (s: Awaited<ReturnType<typeof ThrottlingService.start>>, d: MessageDriver) => Promise<void>) {
    const service = await ThrottlingService.start(options as { throttledWrites?: number; retryAfter?: string });
    const { runtime, driver, crm } = await startSync(service.serviceUrl);
    try {
      await test(service, driver).catch((e) => { console.log('REQUESTS', JSON.stringify(service.requests)); throw e; });
    } finally {
      await runtime.close().catch((e) => console.log('runtime.close', e));
      crm.close();
      console.log('closing service');
      await service.close();
      console.log('closed service');
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('abandons a throttled write with the error properties and applies it on redelivery', async () => {
    await withService({ throttledWrites: 2, retryAfter: '7' }, async (service, driver) => {
      const deliveries = await driver.processAll();
      expect(outcomes(deliveries)).toEqual(['Failed/abandoned', 'Failed/abandoned', 'Success/completed']);
      expect(deliveries.map((d) => d.roundSleeps)).toEqual([[], [4_000], [9_000]]);
      const throttled =
        'odata connection "svc": upsert customers(crm_id=\'A-1\'): throttled by the service (retry after Retry-After) (PATCH 429): ' +
        'Rate limit is exceeded. Try again later. [TooManyRequests]';
      expect(deliveries[0].result.error).toBe(throttled);
      expect(deliveries[1].applicationProperties).toMatchObject({ ErrorMessage: throttled, ErrorType: 'TransientError' });
      expect(service.writes().map((w) => [w.method, w.path, w.status])).toEqual([
        ['PATCH', "/odata/customers(crm_id='A-1')", 429],
        ['PATCH', "/odata/customers(crm_id='A-1')", 429],
        ['PATCH', "/odata/customers(crm_id='A-1')", 204],
      ]);
      expect(JSON.parse(service.writes()[2].body)).toEqual({ crm_id: 'A-1', name: 'Acme' });
      expect(await driver.deadLetters(driver.queues.work.normal)).toEqual([]);
    });
  });

  // KNOWN GAP (reported to the lead): the processor ignores TransientError.retryAfterMs; the retry
  // follows DeliveryCount² · 1000 ms only (4 s here, although the service asked for 30 s).
  // This test fails today (so `it.failing` passes); when the gap is fixed, turn it into `it`.
  it.failing('waits at least the Retry-After the service asked for before retrying', async () => {
    await withService({ throttledWrites: 1, retryAfter: '30' }, async (service, driver) => {
      const deliveries = await driver.processAll();
      expect(outcomes(deliveries)).toEqual(['Failed/abandoned', 'Success/completed']);
      expect(deliveries[1].roundSleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30_000);
    });
  });
});
