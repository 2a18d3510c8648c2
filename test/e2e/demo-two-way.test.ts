import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../../src/cli/main';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import { consoleLogger, silentLogger } from '../../src/telemetry/logger';
import { seedDemo } from '../../src/demo/seed';
import { editProfile, PROFILE_COUNT } from '../../src/demo/two-way';

/**
 * The demo's two-way pair on the whole local host (processors, status page, the conflicts CLI):
 * the README's walkthrough as a user runs it. The schedule is off and the pair's two jobs are run
 * by hand, so that each step waits for nothing but its own sync.
 */
describe('demo: account profiles kept in step both ways', () => {
  let dir: string;
  let host: LocalHost;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-demo-2way-'));
    cpSync(path.join(__dirname, '../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$|\.push-secret$/.test(src) });
    seedDemo(dir);
    const dataDir = path.join(dir, '.data');
    // The CLI (conflicts resolve) beside the host finds the same data folder.
    for (const name of ['AzureWebJobsStorage', 'HIGHWATER_TABLES_ENDPOINT', 'ServiceBusConnection', 'ServiceBusConnection__fullyQualifiedNamespace']) delete process.env[name];
    process.env.HIGHWATER_DATA_DIR = dataDir;
    process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: process.env.DEBUG_2WAY ? consoleLogger : silentLogger,
      noSchedule: true,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
  });

  const read = (side: 'crm' | 'erp', sql: string, ...params: unknown[]) => {
    const db = new Database(path.join(dir, `${side}.db`), { readonly: true });
    try {
      return db.prepare(sql).get(...params) as Record<string, unknown>;
    } finally {
      db.close();
    }
  };
  const crm = (id: string) => read('crm', 'SELECT phone, email, payment_terms, credit_limit FROM account_profiles WHERE account_id = ?', id);
  const erp = (id: string) => read('erp', 'SELECT telephone, mail, terms, credit_limit FROM customer_profiles WHERE crm_id = ?', id);
  /** Runs both directions and waits until the processors have taken everything they sent. */
  const sync = async () => {
    let sent = 0;
    for (const job of ['account-profiles.a-to-b', 'account-profiles.b-to-a']) {
      const run = await host.runtime.detection.runJob(host.runtime.init.getJob(job));
      sent += Object.values(run.sentByQueue ?? {}).reduce((n, v) => n + v, 0);
      await until(async () => (await host.runtime.bus.counts(host.runtime.settings.queues.work.normal)).active === 0 && host.processors.normal.busy === 0);
    }
    return sent;
  };
  // The trigger stamps edits at millisecond resolution; the settled horizon waits for their second to pass.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2_100));

  it('creates each side\'s profiles on the other, then finds nothing to send: its own writes are echoes', async () => {
    await settle();
    expect(await sync()).toBe(PROFILE_COUNT + 2);
    expect(read('erp', 'SELECT count(*) AS n FROM customer_profiles').n).toBe(PROFILE_COUNT + 2);
    expect(read('crm', 'SELECT count(*) AS n FROM account_profiles').n).toBe(PROFILE_COUNT + 2);
    expect(crm('A-0051')).toEqual({ phone: '+49 40 5550', email: 'ap@erp-only.example', payment_terms: 'NET30', credit_limit: 5000 });
    await settle();
    expect(await sync()).toBe(0);
  }, 60_000);

  it('carries a CRM edit to the ERP and an ERP edit to the CRM', async () => {
    editProfile(dir, 'crm', 'A-0001', 'phone', '+49 30 999');
    editProfile(dir, 'erp', 'A-0001', 'credit_limit', '25000');
    await settle();
    await sync();
    expect(erp('A-0001')).toMatchObject({ telephone: '+49 30 999', credit_limit: 25000 });
    expect(crm('A-0001')).toMatchObject({ phone: '+49 30 999', credit_limit: 25000 });
  }, 60_000);

  it('resolves an e-mail both sides changed by the later change, and parks payment terms for a person', async () => {
    editProfile(dir, 'erp', 'A-0002', 'mail', 'erp@first.example');
    await new Promise((resolve) => setTimeout(resolve, 50));
    editProfile(dir, 'crm', 'A-0002', 'email', 'crm@later.example');
    editProfile(dir, 'crm', 'A-0004', 'payment_terms', 'NET60');
    editProfile(dir, 'erp', 'A-0004', 'terms', '30 days net');
    await settle();
    await sync();
    expect(erp('A-0002')).toMatchObject({ mail: 'crm@later.example' });
    expect(crm('A-0002')).toMatchObject({ email: 'crm@later.example' });
    expect(crm('A-0004')).toMatchObject({ payment_terms: 'NET60' });
    expect(erp('A-0004')).toMatchObject({ terms: '30 days net' });
    const status = (await (await fetch(`${host.url}/api/status`)).json()) as { conflicts: Array<{ pair: string; keyA: string; fields: string[] }> };
    expect(status.conflicts).toEqual([expect.objectContaining({ pair: 'account-profiles', keyA: 'A-0004', fields: ['payment_terms'], resolution: null })]);
    expect(await (await fetch(`${host.url}/`)).text()).toContain('highwater conflicts resolve account-profiles A-0004 --take a|b');

    // The operator takes the ERP's terms.
    expect(await runCli(['conflicts', 'resolve', 'account-profiles', 'A-0004', '--take', 'b', '--config', dir])).toBe(0);
    await until(async () => crm('A-0004').payment_terms === '30 days net');
    const after = (await (await fetch(`${host.url}/api/status`)).json()) as { conflicts: unknown[] };
    expect(after.conflicts).toEqual([]);
    await settle();
    expect(await sync()).toBe(0);
  }, 60_000);
});

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
