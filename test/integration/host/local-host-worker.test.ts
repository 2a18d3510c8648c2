import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { readSettings, type Settings } from '../../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { silentLogger } from '../../../src/telemetry/logger';
import { isMetricsReader } from '../../../src/telemetry/metrics';
import { createTarget, generateUuidSource, JOB, TARGET_TABLE, writeE2eConfig } from '../../../bench/e2e/workload';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

const ROWS = 3000;

/** The local host with its processors on a worker thread: SQLite source → local bus → SQLite target (the benchmark's job). */
describe('local host, processing on a worker thread', () => {
  let azurite: TestAzurite;
  let dir: string;
  let host: LocalHost | undefined;

  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-host-worker-'));
    generateUuidSource(dir, ROWS, 256);
    writeE2eConfig(dir);
  }, 60_000);
  afterAll(async () => {
    await azurite?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  const settingsFor = (bus: string): Settings => ({ ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, bus) });
  const targetRows = () => {
    const db = new Database(path.join(dir, 'target.db'), { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${TARGET_TABLE}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  /** Starts the host once detection has queued every row (before the worker starts: `beforeStart`). */
  async function startAfterDetection(bus: string): Promise<LocalHost> {
    createTarget(dir);
    const detect = async (runtime: LocalHost['runtime']) => {
      await runtime.watermarks.resetWatermark(JOB);
      const job = runtime.init.getJob(JOB);
      if (!job) throw new Error(`job ${JOB} is not configured`);
      const run = await runtime.detection.runJob(job);
      expect([run.outcome, run.detected]).toEqual(['Succeeded', ROWS]);
    };
    host = await startLocalHost({ configDir: dir, port: 0, settings: settingsFor(bus), noSchedule: true, log: silentLogger, processing: 'worker', beforeStart: detect });
    return host;
  }

  it('applies every row; its results reach the host stats and its metrics the host metrics', async () => {
    const started = await startAfterDetection('bus-all');
    expect(started.processing).toBe('worker');
    expect(await started.drained({ timeoutMs: 60_000, pollMs: 20 })).toBe(true);
    expect(targetRows()).toBe(ROWS);
    expect(started.stats.processedCount(started.runtime.settings.queues.work.normal)).toBe(ROWS);
    expect([...started.stats.dispositions]).toEqual([['completed', ROWS]]);
    const metrics = started.runtime.metrics;
    if (!isMetricsReader(metrics)) throw new Error('the host metrics cannot be read back');
    const processed = metrics.pointsSince(new Date(0), 'MessagesProcessed').reduce((n, p) => n + (p.count ?? 1), 0);
    expect(processed).toBe(ROWS);
  }, 60_000);

  it('stop() lets the batches in flight finish: each row is applied and its message gone, or still queued', async () => {
    const started = await startAfterDetection('bus-stop');
    await new Promise<void>((resolve) => {
      const watch = setInterval(() => started.stats.processedCount() > 0 && (clearInterval(watch), resolve()), 2);
    });
    await started.stop();
    host = undefined;
    const bus = await LocalBus.open({ dataDir: path.join(dir, 'bus-stop') });
    try {
      const counts = await bus.counts(settingsFor('bus-stop').queues.work.normal);
      // An applied message left uncompleted would be counted twice; a lost one not at all.
      expect(targetRows() + counts.active).toBe(ROWS);
      expect(counts.deadLetter).toBe(0);
      // Stopped part-way (otherwise this proves nothing about in-flight batches).
      expect(counts.active).toBeGreaterThan(0);
    } finally {
      await bus.close();
    }
  }, 60_000);
});
