import { rmSync } from 'node:fs';
import path from 'node:path';
import { readSettings } from '../../../src/platform/settings';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime';
import { azuriteConnectionString, startAzurite, type AzuriteProcess } from '../../../src/storage/azurite';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';
import { silentLogger } from '../../../src/telemetry/logger';
import { bySoak, FaultInjection, faultInjectingRegistry } from '../../support/fault-injection';
import { MessageDriver, outcomes } from './support/fault-rig';
import { SteppingClock } from './support/stepping-clock';
import { writeSyncFolder, type SyncFolder } from './support/sync-folder';

/**
 * The tables go away in the middle of a detection run — after the watermark was read and the
 * messages sent, before the watermark is written (the source connector stops Azurite as it hands
 * over its first page). The run fails and keeps the old watermark; after Azurite restarts on the
 * same port and data folder, the next run reads the same rows again, the bus drops the resends
 * as duplicates, and every change is applied exactly once: duplicates, never gaps.
 */
describe('tables lost in the middle of a detection run', () => {
  let folder: SyncFolder;
  let azurite: AzuriteProcess;
  let storage: TableStorage;
  let runtime: Runtime;
  let driver: MessageDriver;
  const faults = new FaultInjection();
  const location = () => path.join(folder.dir, 'azurite');

  beforeAll(async () => {
    folder = writeSyncFolder();
    azurite = await startAzurite({ port: 0, location: location() });
    const settings = { ...readSettings({}), storageConnectionString: azuriteConnectionString(azurite.port), dataDir: path.join(folder.dir, 'data') };
    // No retries inside the SDK: the outage shows at once instead of after its backoff.
    storage = await openTableStorage(settings, { maxRetries: 0 });
    const clock = new SteppingClock('2026-03-01T00:00:00Z');
    runtime = await createRuntime({ settings, configDir: folder.dir, storage, clock, log: silentLogger, registry: faultInjectingRegistry(faults) });
    await runtime.init.ensureInitialized();
    driver = new MessageDriver(runtime, clock);
  });

  afterAll(async () => {
    await runtime?.close();
    await storage?.close();
    await azurite?.stop();
    folder?.close();
    if (folder) rmSync(folder.dir, { recursive: true, force: true });
  });

  it('fails the run, keeps the watermark, and the rerun after the restart delivers every change once', async () => {
    const n = bySoak(30, 3000);
    const insert = folder.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
    const ids = Array.from({ length: n }, (_, i) => `A-${String(i + 1).padStart(5, '0')}`);
    ids.forEach((id, i) => insert.run(id, `Name ${id}`, 'x', new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()));
    let stopped = false;
    faults.plan = {
      beforeSourcePage: async ({ jobName }) => {
        if (jobName !== 'crm-accounts' || stopped) return;
        stopped = true;
        await azurite.stop();
      },
    };
    const job = runtime.init.getJob('crm-accounts');
    const high = runtime.settings.queues.work.high;

    const broken = await runtime.detection.runJob(job);
    expect(broken).toMatchObject({ outcome: 'Failed', detected: n, sentByQueue: { [high]: n }, watermarkBefore: null, watermarkAfter: null });
    expect(broken.error).toBe(`table upsert on "watermark" failed: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${azurite.port}`);
    expect((await runtime.bus.counts(high)).active).toBe(n);

    azurite = await startAzurite({ port: azurite.port, location: location() });
    expect((await runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBeNull();
    const rerun = await runtime.detection.runJob(job);
    expect(rerun).toMatchObject({ outcome: 'Succeeded', detected: n, watermarkBefore: null, watermarkAfter: new Date(Date.UTC(2026, 0, 1) + (n - 1) * 1000).toISOString().replace('.000Z', '.0000000Z') });
    // The resends carry the same message ids: the bus's duplicate detection dropped them.
    expect((await runtime.bus.counts(high)).active).toBe(n);

    await driver.processAll({ maxMessages: 50 });
    for (const id of ids) expect(outcomes(driver.deliveriesOf(id, 'crm-accounts'))).toEqual(['Success/completed']);
    expect(folder.erp.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n });
    expect((await runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe(rerun.watermarkAfter);
  });
});
