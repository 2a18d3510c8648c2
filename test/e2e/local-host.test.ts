import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { resetJobsState } from '../../src/cli/commands/start';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import type { ProcessingMode } from '../../src/host/processing-mode';
import { silentLogger } from '../../src/telemetry/logger';
import { changeDemoAccount, DEMO_SIZES, DEMO_SPECIAL, seedDemo } from '../../src/demo/seed';
import { startTestAzurite, type TestAzurite } from '../support/azurite';

/** The whole local host on a copy of the demo: schedule, HTTP functions, processors. */
describe('local host on the demo', () => {
  let azurite: TestAzurite;
  let dir: string;
  let host: LocalHost;

  const start = (beforeStart?: Parameters<typeof startLocalHost>[0]['beforeStart'], processing?: ProcessingMode, tables?: 'sqlite') =>
    startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      beforeStart,
      processing,
      settings: {
        ...readSettings({}),
        ...(tables ? { storageConnectionString: undefined, localTables: tables } : { storageConnectionString: azurite.connectionString }),
        dataDir: path.join(dir, '.data'),
        getChangesSchedule: '* * * * * *',
      },
    });

  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-host-'));
    cpSync(path.join(__dirname, '../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$/.test(src) });
    seedDemo(dir);
    host = await start();
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    await azurite?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const erp = () => new Database(path.join(dir, 'erp.db'), { readonly: true });
  const crm = () => new Database(path.join(dir, 'crm.db'), { readonly: true });

  async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('syncs the demo on its schedule, with each special row in its place', async () => {
    await until(() => (host.stats.recentRuns.some((r) => r.jobName === 'crm-contacts-to-erp' && r.detected > 0) ? true : undefined));
    expect(await host.drained({ timeoutMs: 60_000 })).toBe(true);
    const db = erp();
    try {
      // Every CRM account but the outdated one is applied; tombstoned customers are gone.
      expect(db.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: DEMO_SIZES.accounts });
      expect(db.prepare('SELECT name FROM customers WHERE crm_id = ?').get(DEMO_SPECIAL.staleAccount)).toEqual({ name: 'EDITED IN ERP' });
      expect(db.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: DEMO_SIZES.contacts - 2 });
    } finally {
      db.close();
    }
    const c = crm();
    try {
      expect(c.prepare('SELECT count(*) AS n FROM accounts WHERE erp_number IS NOT NULL').get()).toEqual({ n: DEMO_SIZES.accounts - 1 });
    } finally {
      c.close();
    }
    const { bus, settings } = host.runtime;
    expect((await bus.counts(settings.queues.ignored)).active).toBe(1);
    expect((await bus.counts(settings.queues.transitive.normal)).active).toBe(1);
    expect((await bus.counts(settings.queues.work.normal)).deadLetter).toBe(1);
  }, 90_000);

  it('picks up a changed CRM row within a schedule period', async () => {
    expect(changeDemoAccount(dir, 'A-0100', 'Renamed Ltd')).toBe(true);
    const name = await until(() => {
      const db = erp();
      try {
        const row = db.prepare('SELECT name FROM customers WHERE crm_id = ?').get('A-0100') as { name: string };
        return row.name === 'RENAMED LTD' ? row.name : undefined;
      } finally {
        db.close();
      }
    }, 15_000);
    expect(name).toBe('RENAMED LTD');
  }, 30_000);

  it('runs a job over HTTP and answers 404 with a JSON error for an unknown one', async () => {
    const ok = await fetch(`${host.url}/api/jobs/crm-accounts-to-erp/execute`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ job: 'crm-accounts-to-erp', outcome: 'Succeeded' });
    const missing = await fetch(`${host.url}/api/jobs/nope/execute`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'JobNotFound', message: 'unknown job "nope"' } });
    const bad = await fetch(`${host.url}/api/jobs/crm-accounts-to-erp/execute`, { method: 'POST', body: '{"dryRun":"yes"}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'BadRequest', message: 'body.dryRun: expected a boolean' } });
    const wrongMethod = await fetch(`${host.url}/api/jobs/crm-accounts-to-erp/execute`);
    expect(wrongMethod.status).toBe(405);
  });

  it('runs the durable path through the local driver: 202, then a completed instance', async () => {
    const start = await fetch(`${host.url}/api/orchestrators/GetChangesOrchestrator`, { method: 'POST', body: '{"jobs":["crm-contacts-to-erp"]}' });
    expect(start.status).toBe(202);
    const { id, statusQueryGetUri } = (await start.json()) as { id: string; statusQueryGetUri: string };
    expect(start.headers.get('location')).toBe(statusQueryGetUri);
    const status = await until(async () => {
      const body = (await (await fetch(statusQueryGetUri)).json()) as { runtimeStatus: string; instanceId: string };
      return body.runtimeStatus === 'Completed' || body.runtimeStatus === 'Failed' ? body : undefined;
    }, 20_000);
    expect(status).toMatchObject({ instanceId: id, runtimeStatus: 'Completed' });
    expect((await fetch(`${host.url}/api/orchestrators/instances/nope`)).status).toBe(404);
  });

  // `npm start -- --once --reset` after a run sent 1–3 of 2,000 accounts, because
  // the kept applied hashes called the re-created accounts unchanged.
  it('after a reset (demo databases recreated, jobs\' state cleared) syncs every account again', async () => {
    await host.stop();
    seedDemo(dir, { reset: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dir, '.data', 'bus.sqlite') + suffix, { force: true });
    let notice = '';
    host = await start(async (runtime) => void (notice = await resetJobsState(runtime)));
    // Every account but the outdated one was applied (and hashed); the demo deletes DEMO_SIZES.deletedAccounts customers.
    // The demo's pair (two of the six jobs) forgets its couplings: both sides' profiles are recreated.
    expect(notice).toMatch(
      new RegExp(`^reset 6 jobs: watermarks cleared, ${DEMO_SIZES.accounts - 1} applied hashes and ${DEMO_SIZES.deletedAccounts} recorded deletions removed; \\d+ couplings and 0 parked conflicts of 1 pair\\(s\\) forgotten$`),
    );
    await until(() => (host.stats.recentRuns.some((r) => r.jobName === 'crm-accounts-to-erp' && r.detected > 0) ? true : undefined));
    expect(await host.drained({ timeoutMs: 60_000 })).toBe(true);
    const db = erp();
    try {
      expect(db.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: DEMO_SIZES.accounts });
    } finally {
      db.close();
    }
  }, 120_000);

  it.each([
    ['inline', undefined],
    ['worker', undefined],
    ['worker', 'sqlite'],
  ] as const)('reaches the demo end state with the processors %s (local tables: %s)', async (processing, tables) => {
    await host.stop();
    seedDemo(dir, { reset: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dir, '.data', 'bus.sqlite') + suffix, { force: true });
    host = await start(async (runtime) => void (await resetJobsState(runtime)), processing, tables);
    expect(host.processing).toBe(processing);
    // The worker opens the same tables file: both threads write it.
    if (tables) expect(host.runtime.storage.description).toBe(`SQLite tables in ${path.join(dir, '.data', 'tables.db')}`);
    await until(() => (host.stats.recentRuns.some((r) => r.jobName === 'crm-contacts-to-erp' && r.detected > 0) ? true : undefined));
    expect(await host.drained({ timeoutMs: 60_000 })).toBe(true);
    const db = erp();
    const c = crm();
    try {
      expect(db.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: DEMO_SIZES.accounts });
      expect(db.prepare('SELECT name FROM customers WHERE crm_id = ?').get(DEMO_SPECIAL.staleAccount)).toEqual({ name: 'EDITED IN ERP' });
      expect(db.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: DEMO_SIZES.contacts - 2 });
      expect(c.prepare('SELECT count(*) AS n FROM accounts WHERE erp_number IS NOT NULL').get()).toEqual({ n: DEMO_SIZES.accounts - 1 });
    } finally {
      db.close();
      c.close();
    }
    const { bus, settings } = host.runtime;
    expect((await bus.counts(settings.queues.ignored)).active).toBe(1);
    expect((await bus.counts(settings.queues.transitive.normal)).active).toBe(1);
    expect((await bus.counts(settings.queues.work.normal)).deadLetter).toBe(1);
    // What the processors did reached the host's stats, whichever thread they ran on.
    expect(host.stats.processedCount()).toBeGreaterThanOrEqual(DEMO_SIZES.accounts + DEMO_SIZES.contacts);
  }, 120_000);

  it('shows an outage of the target on the status page when the processors run on a worker', async () => {
    await host.stop();
    seedDemo(dir, { reset: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dir, '.data', 'bus.sqlite') + suffix, { force: true });
    // Every group of the accounts job fails as a whole: the ERP has no customers table.
    const db = new Database(path.join(dir, 'erp.db'));
    db.exec('ALTER TABLE customers RENAME TO customers_gone');
    db.close();
    host = await start(async (runtime) => void (await resetJobsState(runtime)), 'worker');
    const outages = await until(async () => {
      const status = (await (await fetch(`${host.url}/api/status`)).json()) as { targetOutages: Array<{ connection: string; error: string }> };
      return status.targetOutages.length > 0 ? status.targetOutages : undefined;
    });
    expect(outages).toEqual([expect.objectContaining({ connection: 'erp', error: expect.stringContaining('customers') })]);
    expect(await (await fetch(`${host.url}/`)).text()).toContain('is in outage');
  }, 120_000);
});
