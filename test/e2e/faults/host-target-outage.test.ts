import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse, stringify } from 'yaml';
import { DEMO_SIZES, seedDemo } from '../../../src/demo/seed';
import { readSettings } from '../../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { SOAK, until } from '../../support/fault-injection';
import { recordingLogger } from './support/sync-folder';

/**
 * Full form only (`HIGHWATER_SOAK=1`; about a minute of real time): the whole local host on the
 * demo, real clock, the ERP locked for 12 s while thousands of messages are in flight. Every
 * group that hits the lock fails as a whole and is retried after its backoff; after five such
 * groups in a row the target is in outage mode (its messages wait, one probe every 30 s) until a
 * probe succeeds. The end state is exactly the demo's (the reduced form of this fault runs on a
 * fake clock in target-faults.test.ts).
 */
(SOAK ? describe : describe.skip)('local host on the demo with the ERP down for a while', () => {
  let azurite: TestAzurite;
  let dir: string;
  let host: LocalHost;
  const log = recordingLogger();

  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-outage-'));
    cpSync(path.join(__dirname, '../../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$/.test(src) });
    // A locked ERP answers SQLITE_BUSY after 50 ms instead of blocking the host for 5 s per statement.
    const file = path.join(dir, 'connections.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { connections: Array<{ name: string; settings: Record<string, unknown> }> };
    config.connections.find((c) => c.name === 'erp')!.settings.busyTimeoutMs = 50;
    writeFileSync(file, stringify(config));
    seedDemo(dir);
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log,
      settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, '.data'), getChangesSchedule: '* * * * * *' },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    await azurite?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('retries every message that met the outage and ends in the demo end state', async () => {
    await until('processing under way', () => (host.stats.processedCount() > 500 ? true : undefined), 60_000);
    const lock = new Database(path.join(dir, 'erp.db'));
    lock.exec('BEGIN EXCLUSIVE');
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    lock.exec('COMMIT');
    lock.close();
    expect(await host.drained({ timeoutMs: 240_000 })).toBe(true);

    // Whole groups met the lock (one line a group), the target went into outage mode and came back.
    const busy = log.lines.filter((l) => l.startsWith('warn') && l.includes('failed together') && l.includes('SQLITE_BUSY'));
    expect(busy.length).toBeGreaterThan(0);
    expect(log.lines.some((l) => l.startsWith('error target connection "erp" failed') && l.includes('its messages wait'))).toBe(true);
    expect(log.lines.some((l) => l.includes('target connection "erp" answers again'))).toBe(true);
    const erp = new Database(path.join(dir, 'erp.db'), { readonly: true });
    try {
      expect(erp.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: DEMO_SIZES.accounts });
      expect(erp.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: DEMO_SIZES.contacts - 2 });
    } finally {
      erp.close();
    }
    const { bus, settings } = host.runtime;
    expect((await bus.counts(settings.queues.ignored)).active).toBe(1);
    expect((await bus.counts(settings.queues.transitive.normal)).active).toBe(1);
    expect((await bus.counts(settings.queues.work.normal)).deadLetter).toBe(1);
    expect((await bus.counts(settings.queues.work.high)).deadLetter).toBe(0);
    expect((await bus.counts(settings.queues.work.low)).deadLetter).toBe(0);
  }, 360_000);
});
