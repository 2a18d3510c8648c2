import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readSettings } from '../../src/platform/settings';
import { resetJobsState } from '../../src/cli/commands/start';
import { startLocalHost } from '../../src/host/local-host';
import { silentLogger } from '../../src/telemetry/logger';
import type { JobRunResult } from '../../src/detect/job-run';
import { FLOOD_JOB, FLOOD_TABLE, prepareLatencyFolder, readLatencies, writeSmallChange, type LatencyReading } from '../../bench/e2e/latency-workload';
import { startTestAzurite, type TestAzurite } from '../support/azurite';

/**
 * Two jobs of the same priority on the local host, its schedule every second: a first load of
 * 20,000 rows (ordered first) and a small job with one change. Without backpressure the small
 * change is sent behind the whole flood and applied after all of it; with a depth limit it is
 * applied while most of the flood still waits, and the flood still arrives whole, each row once.
 */
const FLOOD = 20_000;

describe('fairness within one priority queue', () => {
  let azurite: TestAzurite;
  let dir: string | undefined;
  const savedLimit = process.env.HIGHWATER_QUEUE_DEPTH_LIMIT;

  beforeAll(async () => {
    azurite = await startTestAzurite();
  }, 60_000);
  afterEach(() => {
    if (savedLimit === undefined) delete process.env.HIGHWATER_QUEUE_DEPTH_LIMIT;
    else process.env.HIGHWATER_QUEUE_DEPTH_LIMIT = savedLimit;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  afterAll(async () => {
    await azurite?.stop();
  });

  /** `during`: called once the flood is under way (some of its rows applied), with the folder. */
  async function run(limit: string, during?: (folder: string) => void): Promise<LatencyReading & { floodRuns: JobRunResult[]; watermark: string | null }> {
    const folder = (dir = mkdtempSync(path.join(os.tmpdir(), 'hw-fairness-')));
    // The flood job every second too: after its load, a later run reads what changed meanwhile.
    prepareLatencyFolder(folder, FLOOD, 256, '* * * * * *');
    const small = new Database(path.join(folder, 'small.db'));
    try {
      writeSmallChange(small, 1); // before the start: both jobs are due at the first tick
    } finally {
      small.close();
    }
    process.env.HIGHWATER_QUEUE_DEPTH_LIMIT = limit;
    const began = new Date();
    const host = await startLocalHost({
      // One Azurite for the file: each test starts from empty watermarks.
      beforeStart: async (runtime) => void (await resetJobsState(runtime)),
      configDir: folder,
      port: 0,
      log: silentLogger,
      processing: 'inline',
      checkConnections: false,
      settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(folder, '.data'), getChangesSchedule: '* * * * * *' },
    });
    try {
      const deadline = Date.now() + 120_000;
      let touched = false;
      for (;;) {
        const reading = readLatencies(folder);
        if (during && !touched && reading.flood.rows >= 2000) {
          during(folder);
          touched = true;
        }
        if (reading.flood.rows >= FLOOD && reading.latenciesMs.length === 1 && (!during || (touched && (await settled(host, began))))) break;
        if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(reading)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await host.drained({ timeoutMs: 30_000 })).toBe(true);
      const floodRuns = (await host.runtime.runLog.latest(FLOOD_JOB, 200)).filter((r) => r.startedAt >= began).reverse();
      const watermark = (await host.runtime.watermarks.getWatermarkByJobName(FLOOD_JOB)).watermark;
      return { ...readLatencies(folder), floodRuns, watermark };
    } finally {
      await host.stop();
    }
  }

  /** The flood job's latest run read to the end and found nothing more (it ran after the changes made during it). */
  async function settled(host: { runtime: { runLog: { latest(job: string, n: number): Promise<JobRunResult[]> } } }, since: Date): Promise<boolean> {
    const [latest] = await host.runtime.runLog.latest(FLOOD_JOB, 1);
    return latest !== undefined && latest.startedAt >= since && latest.detected === 0 && !latest.stoppedEarly;
  }

  function appliedOnce(folder: string): { rows: number; applies: number } {
    const db = new Database(path.join(folder, 'target.db'), { readonly: true });
    try {
      const rows = (db.prepare(`SELECT count(*) AS n FROM ${FLOOD_TABLE}`).get() as { n: number }).n;
      const applies = (db.prepare(`SELECT count(*) AS n FROM applied_log WHERE tbl = ?`).get(FLOOD_TABLE) as { n: number }).n;
      return { rows, applies };
    } finally {
      db.close();
    }
  }

  it(`with a depth limit of 1,000 the small job's change is applied while most of a ${FLOOD}-row flood still waits`, async () => {
    const r = await run('1000');
    console.log(`limit 1000: small change applied with ${r.floodAfter[0]} flood rows still to come, latency ${r.latenciesMs[0]} ms; flood in ${r.floodRuns.length} runs`);
    expect(r.floodAfter[0]).toBeGreaterThan(FLOOD * 0.75);
    // The flood: stopped runs (cursor saved at the cut), then one that read to the end and wrote the watermark.
    const stopped = r.floodRuns.filter((run) => run.stoppedEarly === 'backpressure');
    expect(stopped.length).toBeGreaterThanOrEqual(3);
    expect(r.floodRuns.every((run) => run.outcome === 'Succeeded')).toBe(true);
    const load = r.floodRuns.slice(0, r.floodRuns.findIndex((run) => !run.stoppedEarly) + 1);
    expect(load[load.length - 1].stoppedEarly).toBeUndefined();
    expect(load.slice(1).every((run) => run.resumed)).toBe(true);
    expect(r.watermark).toBe(load[load.length - 1].watermarkAfter);
    expect(load.reduce((n, run) => n + run.detected, 0)).toBe(FLOOD);
    // Every flood row applied, and once: a clean cut repeats nothing.
    expect(appliedOnce(dir as string)).toEqual({ rows: FLOOD, applies: FLOOD });
  }, 180_000);

  it('records changed while the flood is held between its turns end with their newest values: no older change applied after a newer one', async () => {
    const changed: string[] = [];
    const r = await run('1000', (folder) => {
      const db = new Database(path.join(folder, 'source.db'));
      try {
        // Every 40th key: rows already sent with their old values and rows the load has not reached yet.
        const keys = (db.prepare('SELECT id FROM accounts ORDER BY modified_at, id').all() as Array<{ id: string }>).filter((_, i) => i % 40 === 0).map((row) => row.id);
        const update = db.prepare(`UPDATE accounts SET c3 = 'changed during the flood', modified_at = ? WHERE id = ?`);
        db.transaction(() => keys.forEach((id) => update.run(new Date().toISOString(), id)))();
        changed.push(...keys);
      } finally {
        db.close();
      }
    });
    expect(r.floodRuns.some((run) => run.stoppedEarly === 'backpressure')).toBe(true);
    const db = new Database(path.join(dir as string, 'target.db'), { readonly: true });
    try {
      const stale = changed.filter((id) => (db.prepare(`SELECT field_c3 AS c3 FROM ${FLOOD_TABLE} WHERE crm_id = ?`).get(id) as { c3: string } | undefined)?.c3 !== 'changed during the flood');
      expect({ changed: changed.length, stale }).toEqual({ changed: FLOOD / 40, stale: [] });
      expect((db.prepare(`SELECT count(*) AS n FROM ${FLOOD_TABLE}`).get() as { n: number }).n).toBe(FLOOD);
    } finally {
      db.close();
    }
  }, 180_000);

  it('without a limit (0) the same change waits behind the whole flood', async () => {
    const r = await run('0');
    console.log(`limit 0: small change applied with ${r.floodAfter[0]} flood rows still to come, latency ${r.latenciesMs[0]} ms`);
    expect(r.floodAfter[0]).toBe(0);
    expect(r.floodRuns.filter((run) => run.detected > 0)).toHaveLength(1);
    expect(r.floodRuns[0].stoppedEarly).toBeUndefined();
    expect(appliedOnce(dir as string)).toEqual({ rows: FLOOD, applies: FLOOD });
  }, 180_000);
});
