import { rmSync } from 'node:fs';
import path from 'node:path';
import { readSettings } from '../../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { azuriteConnectionString, startAzurite, type AzuriteProcess } from '../../../src/storage/azurite';
import { bySoak, until } from '../../support/fault-injection';
import { recordingLogger, writeSyncFolder, type SyncFolder } from './support/sync-folder';

/**
 * Azurite (the tables: watermarks, run log) stopped while the local host runs and restarted on
 * the same port with the same data folder: detection fails while it is down (the watermark is
 * not written, so nothing is skipped), processing carries on, and after the restart the next
 * ticks pick up every change made meanwhile. Full form (`HIGHWATER_SOAK=1`): more rows, several
 * outages.
 */
describe('Azurite restarted mid-run', () => {
  let folder: SyncFolder;
  let azurite: AzuriteProcess;
  let host: LocalHost;
  const log = recordingLogger();
  const location = () => path.join(folder.dir, 'azurite');

  beforeAll(async () => {
    folder = writeSyncFolder({ jobSchedule: '* * * * * *' });
    azurite = await startAzurite({ port: 0, location: location() });
    host = await startLocalHost({
      configDir: folder.dir,
      port: 0,
      log,
      settings: {
        ...readSettings({}),
        storageConnectionString: azuriteConnectionString(azurite.port),
        dataDir: path.join(folder.dir, 'data'),
        getChangesSchedule: '* * * * * *',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    await azurite?.stop();
    folder?.close();
    if (folder) rmSync(folder.dir, { recursive: true, force: true });
  });

  let row = 0;
  function addAccounts(n: number): string[] {
    const insert = folder.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
    return Array.from({ length: n }, () => {
      const id = `A-${String(++row).padStart(5, '0')}`;
      insert.run(id, `Name ${id}`, 'x', new Date(Date.UTC(2026, 0, 1) + row * 1000).toISOString());
      return id;
    });
  }
  const applied = () => (folder.erp.prepare('SELECT count(*) AS n FROM customers').get() as { n: number }).n;

  it('recovers: changes made while the tables were down are applied after the restart, none lost or doubled', async () => {
    addAccounts(bySoak(20, 2000));
    await until('the first rows applied', () => (applied() === row ? true : undefined), 60_000);
    for (let outage = 1; outage <= bySoak(1, 3); outage++) {
      const { watermark } = await host.runtime.watermarks.getWatermarkByJobName('crm-accounts');
      const runsBefore = host.stats.recentRuns.length;
      const logBefore = log.lines.length;
      await azurite.stop();
      // Detection needs the watermark table: the tick fails (after the SDK's own retries) and is logged.
      await until('a failed GetChanges tick', () => log.lines.slice(logBefore).find((l) => l.startsWith('error GetChanges failed')), 60_000);
      expect(log.lines.slice(logBefore).filter((l) => l.startsWith('error'))).toContain(
        `error GetChanges failed: table query on "watermark" failed: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${azurite.port}`,
      );
      // Ticks do not overlap: every tick from now on starts without storage, so these rows wait.
      const added = addAccounts(bySoak(5, 500));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(applied()).toBe(row - added.length);
      // The host itself keeps serving.
      expect((await fetch(`${host.url}/api/health`)).status).toBe(200);

      azurite = await startAzurite({ port: azurite.port, location: location() });
      await until('the rows added during the outage applied', () => (applied() === row ? true : undefined), 60_000);
      // The watermark survived the restart: the next run went on from it and read only the new rows.
      const resumed = await until('the resumed run recorded', () =>
        host.stats.recentRuns.slice(runsBefore).find((r) => r.jobName === 'crm-accounts' && r.outcome === 'Succeeded' && r.detected > 0),
      );
      expect(resumed).toMatchObject({ watermarkBefore: watermark, detected: added.length });
    }
    expect(await host.drained({ timeoutMs: 30_000 })).toBe(true);
    const ids = folder.erp.prepare('SELECT crm_id FROM customers ORDER BY crm_id').all() as Array<{ crm_id: string }>;
    expect(ids.map((r) => r.crm_id)).toEqual(Array.from({ length: row }, (_, i) => `A-${String(i + 1).padStart(5, '0')}`));
    expect(folder.crm.prepare('SELECT count(*) AS n FROM accounts WHERE erp_number IS NULL').get()).toEqual({ n: 0 });
    for (const queue of Object.values(host.runtime.settings.queues.work)) expect((await host.runtime.bus.counts(queue)).deadLetter).toBe(0);
  }, bySoak(120_000, 600_000));
});
