import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { ConnectorRegistry } from '../../../connectors/base/registry';
import { createOdataConnectorFactory } from '../../../connectors/odata';
import { sqliteConnectorFactory } from '../../../connectors/sql';
import { readSettings } from '../../../src/platform/settings';
import { createRuntime } from '../../../src/runtime/runtime';
import { silentLogger } from '../../../src/telemetry/logger';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { MessageDriver, outcomes } from './support/fault-rig';
import { SteppingClock } from './support/stepping-clock';
import { ThrottlingService, type ThrottlingServiceOptions } from './support/throttling-service';

const CONFIG = (serviceUrl: string, jobName: string) => ({
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
    { name: jobName, schedule: '0 */5 * * * *', source: 'crm', target: 'svc', mapping: 'account-to-customer', watermark: { type: 'datetime', field: 'modified_at' } },
  ],
});

const THROTTLED =
  "odata connection \"svc\": upsert customers(crm_id='A-1'): throttled by the service (retry after Retry-After) (PATCH 429): " +
  'Rate limit is exceeded. Try again later. [TooManyRequests]';

/**
 * A target that throttles: the real OData connector against a local service that answers
 * `429 Too Many Requests` with `Retry-After` (then `204`). Whatever the processor does with a
 * throttled write, the service must never see the retry sooner than it asked, the change must be
 * applied once it accepts, and a service that never accepts ends in the dead-letter subqueue.
 */
describe('throttled target (429 with Retry-After)', () => {
  let azurite: TestAzurite;
  let cases = 0;
  beforeAll(async () => {
    azurite = await startTestAzurite();
  });
  afterAll(async () => {
    await azurite?.stop();
  });

  /** Runs a CRM (SQLite) → OData sync of one account on a fake clock against a throttling service. */
  async function syncOneAccount(options: ThrottlingServiceOptions, check: (service: ThrottlingService, driver: MessageDriver) => Promise<void>) {
    const clock = new SteppingClock('2026-03-01T00:00:00Z');
    const service = await ThrottlingService.start({ ...options, now: () => clock.now() });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-throttle-'));
    // A job name per case: the cases share one Azurite, and so the watermark table.
    const jobName = `crm-to-svc-${++cases}`;
    const config = CONFIG(service.serviceUrl, jobName);
    for (const kind of ['connections', 'mappings', 'jobs'] as const) writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
    const crm = new Database(path.join(dir, 'crm.db'));
    try {
      crm.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified_at TEXT NOT NULL)');
      crm.prepare('INSERT INTO accounts VALUES (?, ?, ?)').run('A-1', 'Acme', '2026-01-01T00:00:00.000Z');
      const runtime = await createRuntime({
        settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, 'data') },
        configDir: dir,
        clock,
        log: silentLogger,
        registry: new ConnectorRegistry([sqliteConnectorFactory, createOdataConnectorFactory()]),
      });
      try {
        await runtime.init.ensureInitialized();
        const run = await runtime.detection.runJob(runtime.init.getJob(jobName));
        expect([run.outcome, run.error, run.detected]).toEqual(['Succeeded', undefined, 1]);
        await check(service, new MessageDriver(runtime, clock));
      } finally {
        await runtime.close();
      }
    } finally {
      crm.close();
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Seconds from each 429 to the request after it. */
  function retryGaps(service: ThrottlingService): number[] {
    const writes = service.writes();
    return writes.slice(0, -1).flatMap((w, i) => (w.status === 429 ? [(writes[i + 1].at - w.at) / 1000] : []));
  }

  it.each([
    ['delta seconds', () => '7'],
    ['an HTTP date', (now: Date) => new Date(now.getTime() + 7_000).toUTCString()],
  ])('waits the Retry-After (%s) before each retry and applies the change once accepted', async (_form, retryAfter) => {
    await syncOneAccount({ throttledWrites: 2, retryAfter }, async (service, driver) => {
      const deliveries = await driver.processAll();
      expect(outcomes(deliveries).at(-1)).toBe('Success/completed');
      expect(service.writes().map((w) => [w.method, w.path, w.status])).toEqual([
        ['PATCH', "/odata/customers(crm_id='A-1')", 429],
        ['PATCH', "/odata/customers(crm_id='A-1')", 429],
        ['PATCH', "/odata/customers(crm_id='A-1')", 204],
      ]);
      for (const gap of retryGaps(service)) expect(gap).toBeGreaterThanOrEqual(7);
      expect(JSON.parse(service.writes()[2].body)).toEqual({ crm_id: 'A-1', name: 'Acme' });
      expect(await driver.deadLetters(driver.queues.work.normal)).toEqual([]);
    });
  });

  it('a long Retry-After: retried by a copy with the error properties, applied on the next attempt', async () => {
    await syncOneAccount({ throttledWrites: 1, retryAfter: () => '600' }, async (service, driver) => {
      const deliveries = await driver.processAll();
      expect(outcomes(deliveries)).toEqual(['Failed/retried', 'Success/completed']);
      expect(deliveries[0].result.error).toBe(THROTTLED);
      expect(deliveries[1].applicationProperties).toMatchObject({ ErrorMessage: THROTTLED, ErrorType: 'TransientError' });
      expect(service.writes().map((w) => w.status)).toEqual([429, 204]);
    });
  });

  // The retry copy is scheduled at the Retry-After, not at the backoff alone (4 s here).
  it('a long Retry-After delays the retry copy that long', async () => {
    await syncOneAccount({ throttledWrites: 1, retryAfter: () => '600' }, async (service, driver) => {
      await driver.processAll();
      expect(retryGaps(service)).toHaveLength(1);
      expect(retryGaps(service)[0]).toBeGreaterThanOrEqual(600);
    });
  });

  it('a service that never stops throttling: dead-lettered after 10 attempts with ErrorMessage', async () => {
    await syncOneAccount({ throttledWrites: Number.MAX_SAFE_INTEGER, retryAfter: () => '1' }, async (service, driver) => {
      const deliveries = await driver.processAll();
      expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(outcomes(deliveries)).toEqual([...Array(9).fill('Failed/retried'), 'Failed/deadLettered']);
      const [dead] = await driver.deadLetters(driver.queues.work.normal);
      expect(dead).toMatchObject({ deadLetterReason: 'MaxDeliveryCountExceeded' });
      expect(dead.applicationProperties).toMatchObject({ SourceKey: 'A-1', ErrorMessage: THROTTLED, ErrorType: 'TransientError' });
      expect(service.writes().length).toBeGreaterThanOrEqual(10);
      for (const gap of retryGaps(service)) expect(gap).toBeGreaterThanOrEqual(1);
    });
  });
});
