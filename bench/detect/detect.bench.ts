import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { defaultConnectorRegistry } from '../../connectors/default-registry';
import { readSettings } from '../../src/platform/settings';
import { loadConfigFolder } from '../../src/config/load-config';
import { WatermarkValue } from '../../src/model/watermark-value';
import { createRuntime } from '../../src/runtime/runtime';
import { silentLogger } from '../../src/telemetry/logger';
import { heapMb, JOB, peakRssMb, RESULT_PREFIX, rssMb, TABLE, type BenchResult, type BenchTask } from './workload';

/**
 * Child process: measures one stage over the prepared source (see {@link BenchTask}) and prints
 * one result line. Each stage checks that it saw every row, so a fast wrong run cannot report.
 */
type Measured = { changes: number; seconds: number; startRssMb: number };

/** Raw keyset paging as the SQL source does it, without mapping: the ceiling for the connector. */
function keyset(task: BenchTask): Measured {
  const db = new Database(path.join(task.configDir, 'source.db'), { readonly: true, fileMustExist: true });
  try {
    const startRssMb = rssMb();
    const start = performance.now();
    const { upper } = db.prepare(`SELECT max(modified_at) AS upper FROM ${TABLE}`).get() as { upper: string };
    const first = db.prepare(`SELECT * FROM ${TABLE} WHERE modified_at <= ? ORDER BY modified_at, id LIMIT ?`);
    const next = db.prepare(`SELECT * FROM ${TABLE} WHERE modified_at <= ? AND (modified_at, id) > (?, ?) ORDER BY modified_at, id LIMIT ?`);
    let changes = 0;
    let rows = first.all(upper, task.pageSize) as Array<{ id: string; modified_at: string }>;
    while (rows.length > 0) {
      changes += rows.length;
      const last = rows[rows.length - 1];
      rows = rows.length < task.pageSize ? [] : (next.all(upper, last.modified_at, last.id, task.pageSize) as typeof rows);
    }
    return { changes, seconds: (performance.now() - start) / 1000, startRssMb };
  } finally {
    db.close();
  }
}

/** The SQL source connector: read + serialize every change to a queue message; nothing sent. */
async function source(task: BenchTask): Promise<Measured> {
  const registry = defaultConnectorRegistry();
  const config = await loadConfigFolder(task.configDir, { connectionTypes: registry.connectionTypes() });
  const job = config.jobs[0];
  const mapping = config.mappings[0];
  const connector = registry.createSource({ connection: config.connections[0], resolveSecret: () => undefined, configDir: task.configDir });
  try {
    const watermark = WatermarkValue.initialize(job.watermark.type, null);
    const startRssMb = rssMb();
    const start = performance.now();
    let changes = 0;
    for await (const page of connector.retrieveChanges(mapping, job, watermark)) {
      for (const message of page.messages) {
        changes++;
        watermark.advance(message.changeTracker);
      }
    }
    return { changes, seconds: (performance.now() - start) / 1000, startRssMb };
  } finally {
    await connector.close();
  }
}

/** The real detection path of one job run, through the composition root. */
async function runtimePath(task: BenchTask): Promise<Measured> {
  const settings = { ...readSettings({}), storageConnectionString: task.storageConnectionString, dataDir: task.dataDir };
  const runtime = await createRuntime({ settings, configDir: task.configDir, log: silentLogger });
  try {
    await runtime.init.ensureInitialized();
    const job = runtime.init.getJob(JOB);
    // Azurite outlives the children: start each run from an empty watermark (a full load).
    await runtime.watermarks.resetWatermark(JOB);
    const startRssMb = rssMb();
    const start = performance.now();
    const run = await runtime.detection.runJob(job);
    const seconds = (performance.now() - start) / 1000;
    if (run.outcome !== 'Succeeded') throw new Error(`run failed: ${run.error}`);
    const queue = settings.queues.work[job.priority];
    const { active } = await runtime.bus.counts(queue);
    if (run.sentByQueue[queue] !== task.rows || active !== task.rows) {
      throw new Error(`sent ${run.sentByQueue[queue]} and ${active} on ${queue}, expected ${task.rows}`);
    }
    return { changes: run.detected, seconds, startRssMb };
  } finally {
    await runtime.close();
  }
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? '') as BenchTask;
  const measured = task.stage === 'keyset' ? keyset(task) : task.stage === 'source' ? await source(task) : await runtimePath(task);
  if (measured.changes !== task.rows) throw new Error(`${task.stage}: saw ${measured.changes} changes, expected ${task.rows}`);
  const result: BenchResult = {
    stage: task.stage,
    rows: task.rows,
    seconds: Math.round(measured.seconds * 100) / 100,
    changesPerSecond: Math.round(measured.changes / measured.seconds),
    startRssMb: measured.startRssMb,
    peakRssMb: peakRssMb(),
    endHeapMb: heapMb(),
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
