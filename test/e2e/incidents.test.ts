import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { seedDemo } from '../../src/demo/seed';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import type { ProcessingMode } from '../../src/host/processing-mode';
import type { IncidentStatus, StatusModel } from '../../src/host/status/status-model';
import { readSettings } from '../../src/platform/settings';
import { silentLogger } from '../../src/telemetry/logger';

/**
 * An incident's whole life on the local host, as an operator sees it in `/api/status`: the demo's
 * ERP loses its customers table (a real SQLite error, no injected fault), the target goes into
 * outage mode and one "Target in outage" incident opens; the table comes back, the next probe
 * succeeds and the same incident closes by itself, and stays listed. With the processors inline
 * and on the processing worker (whose outage mode the incidents then read).
 */
describe.each<ProcessingMode>(['inline', 'worker'])('local host incidents on the demo, processors %s', (processing) => {
  let dir: string;
  let host: LocalHost;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-incidents-'));
    cpSync(path.join(__dirname, '../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$/.test(src) });
    seedDemo(dir);
    const erp = new Database(path.join(dir, 'erp.db'));
    erp.exec('ALTER TABLE customers RENAME TO customers_gone');
    erp.close();
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      gaugeIntervalMs: 500,
      processing,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, '.data'), getChangesSchedule: '* * * * * *' },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const status = async () => (await (await fetch(`${host.url}/api/status`)).json()) as StatusModel;
  const erpOutages = (s: StatusModel): IncidentStatus[] => s.incidents.filter((i) => i.condition === 'targetOutage' && i.cause === 'erp');

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('opens one incident when the target goes down and closes it when the target is back', async () => {
    const [opened] = await until(
      'the outage incident',
      async () => {
        const found = erpOutages(await status());
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    expect(opened).toMatchObject({ state: 'open', title: 'Target in outage', causeKind: 'connection', closedAt: null, detail: expect.stringContaining('customers') });
    const page = await (await fetch(`${host.url}/`)).text();
    expect(page).toContain(`<tr data-incident="targetOutage" data-cause="erp" data-state="open" class="problem">`);

    // Evaluated again and again while the outage lasts: still the one incident.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(erpOutages(await status())).toEqual([opened]);

    const erp = new Database(path.join(dir, 'erp.db'));
    erp.exec('ALTER TABLE customers_gone RENAME TO customers');
    erp.close();
    // The next probe (one every 30 s) finds the table, the outage ends, the next sample closes the incident.
    const [closed] = await until(
      'the incident to close',
      async () => {
        const found = erpOutages(await status());
        return found.every((i) => i.state === 'closed') ? found : undefined;
      },
      90_000,
    );
    expect(closed).toMatchObject({ id: opened.id, openedAt: opened.openedAt, state: 'closed', closedAt: expect.any(String) });
    expect(Date.parse(closed.closedAt!)).toBeGreaterThan(Date.parse(opened.openedAt));
    expect((await status()).targetOutages).toEqual([]);
    expect(await (await fetch(`${host.url}/`)).text()).toContain('<tr data-incident="targetOutage" data-cause="erp" data-state="closed">');
  }, 180_000);
});
