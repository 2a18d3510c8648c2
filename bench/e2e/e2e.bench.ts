import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost } from '../../src/host/local-host';
import { silentLogger } from '../../src/telemetry/logger';
import { heapMb, peakRssMb, RESULT_PREFIX, rssMb, textColumns } from '../detect/workload';
import { cpuSeconds } from './crm-erp-host';
import { JOB, mapRow, SOURCE_TABLE, TARGET_TABLE, targetColumns, type E2eResult, type E2eTask } from './workload';

/**
 * Child process: measures one stage (see {@link E2eTask}) and prints one result line. Both stages
 * end by counting the target's rows, so a fast wrong run cannot report.
 */
type Measured = Omit<E2eResult, 'stage' | 'rows' | 'rowsPerSecond' | 'peakRssMb' | 'peakHeapMb' | 'endHeapMb'>;
// peakRssMb is the process's: with processing on a worker thread it includes the worker's isolate.

const PAGE = 1000;

/**
 * The physical limit: the same rows in the same order as detection reads them (keyset pages of
 * 1,000 by `(modified_at, id)`, so the UUID keys arrive at the target in random order), each page
 * upserted in one transaction.
 */
function direct(task: E2eTask): Measured {
  const source = new Database(path.join(task.configDir, 'source.db'), { readonly: true, fileMustExist: true });
  const target = new Database(path.join(task.configDir, 'target.db'), { fileMustExist: true });
  try {
    const startRssMb = rssMb();
    const start = performance.now();
    const columns = `id, modified_at, ${textColumns().join(', ')}`;
    const first = source.prepare(`SELECT ${columns} FROM ${SOURCE_TABLE} ORDER BY modified_at, id LIMIT ${PAGE}`);
    const next = source.prepare(`SELECT ${columns} FROM ${SOURCE_TABLE} WHERE (modified_at, id) > (?, ?) ORDER BY modified_at, id LIMIT ${PAGE}`);
    const [key, ...rest] = targetColumns();
    const upsert = target.prepare(
      `INSERT INTO ${TARGET_TABLE} (${targetColumns().join(', ')}) VALUES (${targetColumns().map(() => '?').join(', ')}) ` +
        `ON CONFLICT (${key}) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    );
    const write = target.transaction((rows: Array<Record<string, string>>) => {
      for (const row of rows) upsert.run(...mapRow(row));
    });
    let rows = first.all() as Array<Record<string, string>>;
    while (rows.length > 0) {
      write(rows);
      const last = rows[rows.length - 1];
      rows = rows.length < PAGE ? [] : (next.all(last.modified_at, last.id) as typeof rows);
    }
    return { seconds: (performance.now() - start) / 1000, startRssMb };
  } finally {
    source.close();
    target.close();
  }
}

/** The local host's real services: one detection run while the processors apply what arrives. */
async function endToEnd(task: E2eTask): Promise<Measured> {
  const settings = { ...readSettings({}), storageConnectionString: task.storageConnectionString, dataDir: task.dataDir };
  const host = await startLocalHost({ configDir: task.configDir, port: 0, settings, noSchedule: true, log: silentLogger,
    ...(task.concurrency ? { concurrency: { normal: task.concurrency } } : {}), ...(task.processing ? { processing: task.processing } : {}) });
  try {
    const job = host.runtime.init.getJob(JOB);
    if (!job) throw new Error(`job ${JOB} is not configured`);
    // Azurite outlives the children: every run starts from an empty watermark (a full load).
    await host.runtime.watermarks.resetWatermark(JOB);
    const startRssMb = rssMb();
    let firstApplied = 0;
    let lastApplied = 0;
    // Watches the host's own count (in memory): polling the queue counts would cost the bus a scan each time.
    const applied = new Promise<void>((resolve) => {
      const watch = setInterval(() => {
        const done = host.stats.processedCount();
        if (done > 0 && firstApplied === 0) firstApplied = performance.now();
        if (done >= task.rows) {
          lastApplied = performance.now();
          clearInterval(watch);
          resolve();
        }
      }, 5);
    });
    const cpuBefore = process.cpuUsage();
    const mainBefore = mainThreadCpuMs();
    const start = performance.now();
    const run = await host.runtime.detection.runJob(job);
    const detected = performance.now();
    if (run.outcome !== 'Succeeded') throw new Error(`detection failed: ${run.error}`);
    await applied;
    const end = performance.now();
    // Before the host stops: the worker's threads still count.
    const cpu = process.cpuUsage(cpuBefore);
    const mainAfter = mainThreadCpuMs();
    if (!(await host.drained({ timeoutMs: 60_000, pollMs: 20 }))) throw new Error('the work queue did not drain');
    const failed = [...host.stats.dispositions].filter(([d]) => d !== 'completed');
    if (failed.length > 0) throw new Error(`not every message was applied: ${JSON.stringify(failed)}`);
    return {
      processing: host.processing,
      seconds: (end - start) / 1000,
      startRssMb,
      detectionPerSecond: Math.round(run.detected / ((detected - start) / 1000)),
      processingPerSecond: Math.round(task.rows / ((lastApplied - firstApplied) / 1000)),
      cpuCores: Math.round(((cpu.user + cpu.system) / 1000 / (end - start)) * 100) / 100,
      ...(mainBefore !== undefined && mainAfter !== undefined ? { mainThreadBusy: Math.round((100 * (mainAfter - mainBefore)) / (end - start)) } : {}),
    };
  } finally {
    await host.stop();
  }
}

/** The main thread's user+system CPU time, ms (its thread id is the pid); `process.cpuUsage` counts every thread. */
function mainThreadCpuMs(): number | undefined {
  const cpu = cpuSeconds(process.pid, process.pid);
  return cpu === undefined ? undefined : (cpu.user + cpu.system) * 1000;
}

function targetRows(task: E2eTask): number {
  const db = new Database(path.join(task.configDir, 'target.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${TARGET_TABLE}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? '') as E2eTask;
  let peakHeap = 0;
  // The direct copy is synchronous: this sampler only runs for the e2e stage (and at the end).
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 100);
  const measured = task.stage === 'direct' ? direct(task) : await endToEnd(task);
  clearInterval(sampler);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  const rows = targetRows(task);
  if (rows !== task.rows) throw new Error(`${task.stage}: the target holds ${rows} rows, expected ${task.rows}`);
  const result: E2eResult = {
    stage: task.stage,
    rows: task.rows,
    rowsPerSecond: Math.round(task.rows / measured.seconds),
    ...measured,
    seconds: Math.round(measured.seconds * 100) / 100,
    peakRssMb: peakRssMb(),
    peakHeapMb: Math.round((peakHeap / 1024 / 1024) * 10) / 10,
    endHeapMb: heapMb(),
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
