import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAzurite } from '../../src/storage/azurite';
import { RESULT_PREFIX } from '../detect/workload';
import { createTarget, generateUuidSource, writeE2eConfig, type E2eResult, type E2eTask } from './workload';
import { LOCAL_HOST_V8_FLAGS } from '../../src/host/gc-flags';
import { runCrmErpScenario, UsageError } from './crm-erp-scenario';
import { runLatencyScenario } from './latency-scenario';
import { PROCESSING_MODES, type ProcessingMode } from '../../src/host/processing-mode';

/**
 * The end-to-end benchmark: SQLite source → local bus → SQLite target through the local host's
 * real services (one detection run, the queue processors applying concurrently), for 10k, 100k
 * and 1M rows of ~1 KB with random UUID keys; and, in the same run, the physical limit: a direct
 * copy of the same rows between the same databases in one process (keyset-paged reads, 1,000-row
 * upsert transactions). Each measurement runs in its own child process (its own peak RSS), on a
 * fresh target. Run without a build:
 *
 *   node -r ./src/platform/swc-register.js bench/e2e/run.ts [--sizes 10000,100000,1000000]
 *     [--row-bytes 1024] [--runs 1] [--stages direct,e2e] [--profile DIR] [--concurrency N]
 *     [--processing worker|inline|worker,inline] [--v8-flags host|none|'--flag=value …']
 *
 * `--processing` picks where the host runs its processors (default: the host's own choice);
 * a list measures each mode in turn, alternating within every run, so that a shared machine's
 * load falls on both alike. `--v8-flags` sets the host stage's V8 flags: `host` (default) those
 * `npm start` gives the local host (src/host/gc-flags.ts), `none`, or a space-separated list.
 *
 * `--scenario crm-erp` runs the other scenario instead (crm-erp-scenario.ts), `--scenario
 * latency` the change-to-target latency, with a flood of another job or without
 * (latency-scenario.ts); `--scenario single-job` (the default) is the one above.
 */
const STAGES: ReadonlyArray<E2eTask['stage']> = ['direct', 'e2e'];
const REGISTER = path.resolve(__dirname, '../../src/platform/swc-register.js');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function positive(name: string, fallback: number): number {
  const value = flag(name) === undefined ? fallback : Number(flag(name));
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** `--v8-flags`: the host stage's V8 flags (the direct copy always runs with none). */
export function parseV8Flags(value: string | undefined): readonly string[] {
  if (value === undefined || value === 'host') return LOCAL_HOST_V8_FLAGS;
  if (value === 'none') return [];
  const flags = value.split(' ').filter(Boolean);
  const bad = flags.find((f) => !/^--[a-z0-9][a-z0-9_-]*(=\S+)?$/.test(f));
  if (flags.length === 0 || bad !== undefined) throw new UsageError(`--v8-flags must be host, none or V8 flags like "--max-semi-space-size=8", got "${bad ?? value}"`);
  return flags;
}

function runChild(task: E2eTask, hostFlags: readonly string[], profileDir?: string): Promise<E2eResult> {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return new Promise((resolve, reject) => {
    const v8Flags = task.stage === 'e2e' ? hostFlags : [];
    const child = spawn(process.execPath, [...v8Flags, ...profile, '-r', REGISTER, path.join(__dirname, 'e2e.bench.ts'), JSON.stringify(task)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || !line) return reject(new Error(`${task.stage} ${task.rows} exited with ${code}: ${out.trim().slice(-2000)}`));
      resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as E2eResult);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (n: number | undefined) => (n === undefined ? '' : n.toLocaleString('en-US'));

async function main(): Promise<void> {
  const sizes = (flag('sizes') ?? '10000,100000,1000000').split(',').map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error('--sizes must be positive integers');
  const rowBytes = positive('row-bytes', 1024);
  const runs = positive('runs', 1);
  const stages = (flag('stages') ?? STAGES.join(',')).split(',') as Array<E2eTask['stage']>;
  for (const s of stages) if (!STAGES.includes(s)) throw new Error(`--stages: unknown stage ${s} (known: ${STAGES.join(', ')})`);
  const concurrency = flag('concurrency') === undefined ? undefined : positive('concurrency', 1);
  const modes = flag('processing') === undefined ? [undefined] : (flag('processing') as string).split(',');
  for (const m of modes) if (m !== undefined && !PROCESSING_MODES.includes(m as ProcessingMode)) throw new UsageError(`--processing must be worker, inline or both (comma-separated), got "${m}"`);
  const hostFlags = parseV8Flags(flag('v8-flags'));
  const profileDir = flag('profile') ? path.resolve(flag('profile') as string) : undefined;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });

  console.log(`node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`rows of ~${rowBytes} B with UUID keys, median of ${runs} run(s) per stage; host V8 flags: ${hostFlags.join(' ') || 'none'}\n`);
  const azurite = await startAzurite({ port: 0 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-bench-e2e-'));
  const table: Array<{ rows: number; stage: string; mode?: string; results: E2eResult[] }> = [];
  try {
    const prepare = (rows: number) => {
      const dir = fs.mkdtempSync(path.join(root, `rows-${rows}-`));
      const start = performance.now();
      generateUuidSource(dir, rows, rowBytes);
      writeE2eConfig(dir);
      const mb = fs.statSync(path.join(dir, 'source.db')).size / 1024 / 1024;
      console.error(`generated ${rows} rows (${mb.toFixed(0)} MB) in ${((performance.now() - start) / 1000).toFixed(1)} s`);
      return dir;
    };
    const measure = async (stage: E2eTask['stage'], rows: number, dir: string, run: number, profile?: string, processing?: ProcessingMode) => {
      createTarget(dir);
      const dataDir = path.join(dir, `bus-${run}`);
      try {
        return await runChild({ stage, rows, configDir: dir, dataDir, storageConnectionString: azurite.connectionString, concurrency, processing }, hostFlags, profile);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    };
    // Warm-up: compiles the sources into the register hook's cache, so measured children carry no compiler.
    const warm = prepare(2000);
    for (const stage of stages) for (const mode of stage === 'e2e' ? modes : [undefined]) await measure(stage, 2000, warm, 0, undefined, mode as ProcessingMode | undefined);
    fs.rmSync(warm, { recursive: true, force: true });

    for (const rows of sizes) {
      const dir = prepare(rows);
      for (const stage of stages) {
        const stageModes = stage === 'e2e' ? modes : [undefined];
        const results = stageModes.map((): E2eResult[] => []);
        for (let run = 0; run < runs; run++) {
          for (const [i, mode] of stageModes.entries()) {
            const r = await measure(stage, rows, dir, run, profileDir, mode as ProcessingMode | undefined);
            console.error(`${rows} ${stage}${r.processing ? ` (${r.processing})` : ''} run ${run + 1}: ${r.rowsPerSecond} rows/s, ${r.seconds} s, peak RSS ${r.peakRssMb} MB` +
              (r.detectionPerSecond ? `, detection ${r.detectionPerSecond}/s, processing ${r.processingPerSecond}/s` : '') +
              (r.cpuCores !== undefined ? `, CPU ${r.cpuCores} cores (main thread ${r.mainThreadBusy ?? '?'}%)` : '') + `, load ${os.loadavg()[0].toFixed(2)}`);
            results[i].push(r);
          }
        }
        stageModes.forEach((_, i) => table.push({ rows, stage, mode: results[i][0]?.processing, results: results[i] }));
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await azurite.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  console.log(`load at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log('| rows | stage | rows/s end to end | seconds | detection/s | processing/s | RSS at start MB | peak RSS MB | peak JS heap MB | CPU cores | main thread % | e2e / direct |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { rows, stage, mode, results } of table) {
    const m = (pick: (r: E2eResult) => number | undefined) =>
      results[0] && pick(results[0]) !== undefined ? Math.round(median(results.map((r) => pick(r) ?? 0)) * 10) / 10 : undefined;
    const direct = table.find((t) => t.rows === rows && t.stage === 'direct');
    const ratio = stage === 'e2e' && direct ? `${((100 * (m((r) => r.rowsPerSecond) ?? 0)) / median(direct.results.map((r) => r.rowsPerSecond))).toFixed(0)}%` : '';
    console.log(`| ${fmt(rows)} | ${stage}${mode ? ` (${mode})` : ''} | ${fmt(m((r) => r.rowsPerSecond))} | ${m((r) => r.seconds)} | ${fmt(m((r) => r.detectionPerSecond))} | ${fmt(m((r) => r.processingPerSecond))} | ${m((r) => r.startRssMb)} | ${m((r) => r.peakRssMb)} | ${m((r) => r.peakHeapMb)} | ${m((r) => r.cpuCores) ?? ''} | ${m((r) => r.mainThreadBusy) ?? ''} | ${ratio} |`);
  }
}

const SCENARIOS = ['single-job', 'crm-erp', 'latency'];

function scenario(): string {
  const i = process.argv.indexOf('--scenario');
  if (i < 0) return 'single-job';
  const name = process.argv[i + 1];
  if (name === undefined || !SCENARIOS.includes(name)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}, got "${name ?? ''}"`);
  return name;
}

Promise.resolve()
  .then(() => {
    const name = scenario();
    if (name === 'crm-erp') return runCrmErpScenario(process.argv.slice(2));
    return name === 'latency' ? runLatencyScenario(process.argv.slice(2)) : main();
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`error: ${err.message}`);
      process.exitCode = 2;
      return;
    }
    console.error(err);
    process.exitCode = 1;
  });
