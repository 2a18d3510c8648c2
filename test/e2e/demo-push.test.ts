import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import { silentLogger } from '../../src/telemetry/logger';
import { seedDemo } from '../../src/demo/seed';
import { DEMO_PUSH_JOB, DEMO_PUSH_SECRET_SETTING, demoPushSecret, pushDemoAccount, waitForErpCustomerName } from '../../src/demo/push';

/**
 * The demo's pushed change (`highwater demo push-account`): the host runs without its schedule,
 * so whatever reaches the ERP came through `POST /api/hooks/crm-accounts-to-erp`.
 */
describe('demo: a pushed change arrives without a poll', () => {
  let dir: string;
  let host: LocalHost;
  const savedSecret = process.env[DEMO_PUSH_SECRET_SETTING];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-demo-push-'));
    cpSync(path.join(__dirname, '../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$|\.push-secret$/.test(src) });
    seedDemo(dir);
    // What `highwater demo` does before it starts the host.
    delete process.env[DEMO_PUSH_SECRET_SETTING];
    process.env[DEMO_PUSH_SECRET_SETTING] = demoPushSecret(dir);
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      noSchedule: true,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, '.data') },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    if (savedSecret === undefined) delete process.env[DEMO_PUSH_SECRET_SETTING];
    else process.env[DEMO_PUSH_SECRET_SETTING] = savedSecret;
    rmSync(dir, { recursive: true, force: true });
  });

  const erpCustomers = () => {
    const erp = new Database(path.join(dir, 'erp.db'), { readonly: true });
    try {
      return (erp.prepare('SELECT COUNT(*) AS n FROM customers').get() as { n: number }).n;
    } finally {
      erp.close();
    }
  };

  it('renames the CRM account, posts it signed, and the ERP has it within seconds (nothing was polled)', async () => {
    const before = erpCustomers();
    const pushed = await pushDemoAccount({ dir, baseUrl: host.url, id: 'A-0100', name: 'Pushed Ltd' });
    expect(pushed?.status).toBe(202);
    expect(pushed?.answer).toMatchObject({ accepted: true, job: DEMO_PUSH_JOB, queue: 'sbqhigh', sent: 1 });
    expect(pushed?.account).toMatchObject({ id: 'A-0100', name: 'Pushed Ltd' });
    const waited = await waitForErpCustomerName(dir, 'A-0100', 'PUSHED LTD', 10_000);
    expect(waited).toBeDefined();
    // Only the pushed account: the 2,000 others would come with a poll.
    expect(erpCustomers()).toBe(before + 1);
  }, 30_000);

  it('refuses a notification signed with another secret (401) and changes nothing in the ERP', async () => {
    const before = erpCustomers();
    const pushed = await pushDemoAccount({ dir, baseUrl: host.url, id: 'A-0200', name: 'Forged Ltd', secret: 'not-the-demo-secret' });
    expect(pushed?.status).toBe(401);
    expect(pushed?.answer).toEqual({ error: { code: 'Unauthorized', message: "x-highwater-signature: not the HMAC-SHA256 of the body with the job's push.secret" } });
    expect(await waitForErpCustomerName(dir, 'A-0200', 'FORGED LTD', 1_500)).toBeUndefined();
    expect(erpCustomers()).toBe(before);
  }, 30_000);

  it('the status page lists the push job with its route and format', async () => {
    const status = (await (await fetch(`${host.url}/api/status`)).json()) as { push: unknown[] };
    expect(status.push).toEqual([{ job: DEMO_PUSH_JOB, format: 'generic', route: `/api/hooks/${DEMO_PUSH_JOB}` }]);
    expect(await (await fetch(`${host.url}/`)).text()).toContain(`<code>POST /api/hooks/${DEMO_PUSH_JOB}</code>`);
  });

  it('posts nothing for an account the CRM does not have', async () => {
    expect(await pushDemoAccount({ dir, baseUrl: host.url, id: 'A-9999', name: 'Nobody' })).toBeUndefined();
  });
});
