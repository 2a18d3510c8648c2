import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { readSettings } from '../../../src/platform/settings';
import { silentLogger } from '../../../src/telemetry/logger';
import { BusinessCentralStandIn, COMPANY_ID } from '../../support/business-central-stand-in';
import { ERP_SCHEMA } from '../../support/sync-fixture';

/**
 * The whole local host with a job that takes Business Central notifications: once it listens it
 * subscribes by itself (the stand-in's handshake reaches its HTTP server), and a customer created
 * and deleted in the stand-in reaches the SQLite target through notifications.
 */
const SETTINGS = { secret: 'HW_E2E_BC_SECRET', state: 'HW_E2E_BC_STATE', url: 'HW_E2E_BC_URL' };

describe('Business Central push on the local host', () => {
  let dir: string;
  let host: LocalHost;
  let bc: BusinessCentralStandIn;
  let port: number;

  beforeAll(async () => {
    bc = new BusinessCentralStandIn();
    const serviceUrl = await bc.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-bc-e2e-'));
    // A fixed free port: the notification URL names it before the host starts.
    const probe = (await import('node:net')).createServer();
    port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
    await new Promise((resolve) => probe.close(resolve));
    process.env[SETTINGS.secret] = 'e2e-bc-secret';
    process.env[SETTINGS.state] = 'e2e-bc-state';
    process.env[SETTINGS.url] = `http://127.0.0.1:${port}/api/hooks/bc-customers?code=e2e-bc-secret`;
    const files = {
      connections: [
        { name: 'bc', type: 'businesscentral', settings: { company: COMPANY_ID, serviceUrl } },
        { name: 'erp', type: 'sqlite', settings: { file: './erp.db', versionField: 'modified_at' } },
      ],
      mappings: [
        {
          name: 'bc-customer',
          source: { entity: 'customers', key: ['id'] },
          target: { entity: 'customers', key: ['crm_id'] },
          fields: [
            { target: 'crm_id', source: 'id' },
            { target: 'name', source: 'displayName' },
            { target: 'modified_at', source: 'lastModifiedDateTime' },
          ],
        },
      ],
      jobs: [
        {
          name: 'bc-customers',
          // Disabled: the timer never polls it (the stand-in serves no collection reads); a disabled
          // job still takes pushes, as it can still be run by name. Only notifications move data.
          schedule: '0 0 0 1 1 *',
          enabled: false,
          source: 'bc',
          target: 'erp',
          mapping: 'bc-customer',
          watermark: { type: 'datetime', field: 'lastModifiedDateTime' },
          skipOutdatedMessages: true,
          push: { format: 'businesscentral', secret: SETTINGS.secret, clientState: SETTINGS.state, notificationUrl: SETTINGS.url },
        },
      ],
    };
    for (const kind of ['connections', 'mappings', 'jobs'] as const) writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: files[kind] }));
    new Database(path.join(dir, 'erp.db')).exec(ERP_SCHEMA).close();
    host = await startLocalHost({
      configDir: dir,
      port,
      log: silentLogger,
      checkConnections: false,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, '.data') },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    await bc?.close();
    for (const name of Object.values(SETTINGS)) delete process.env[name];
    rmSync(dir, { recursive: true, force: true });
  });

  const customer = (id: string) => {
    const db = new Database(path.join(dir, 'erp.db'), { readonly: true });
    try {
      return db.prepare('SELECT name FROM customers WHERE crm_id = ?').get(id) as { name: string } | undefined;
    } finally {
      db.close();
    }
  };

  async function until(probe: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('subscribes once it listens, then applies a created and a deleted customer from their notifications', async () => {
    await until(() => bc.subscriptions.size === 1);
    expect(bc.handshakes).toEqual([expect.objectContaining({ status: 200, ok: true })]);
    const id = '4b4f31f0-dc1c-4033-b2aa-ab03ca1d6ebc';
    expect(await bc.change('created', { id, number: '20000', displayName: 'Trey Research', city: 'Chicago' })).toEqual([202]);
    await until(() => customer(id) !== undefined);
    expect(customer(id)).toEqual({ name: 'Trey Research' });
    expect(await bc.change('deleted', { id, number: '20000', displayName: 'Trey Research', city: 'Chicago' })).toEqual([202]);
    await until(() => customer(id) === undefined);
  });
});
