import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAzurite } from '../../src/storage/azurite';
import { generateSource, RESULT_PREFIX, writeBenchConfig, type BenchResult, type BenchTask } from './workload';
import { LOCAL_HOST_V8_FLAGS } from '../../src/host/gc-flags';

/**
 * The detection benchmark: changes detected per second and peak RSS of one job run over a SQLite
 * source of 10k, 100k and 1M rows of ~1 KB, each measurement in its own child process (its own
 * peak RSS). Stages: `keyset` (raw keyset-paged SELECTs), `source` (the SQL source connector:
 * read + serialize), `runtime` (the real path: runJob → ServiceBusService → local bus, watermark
 * to an in-memory Azurite started here). Run without a build:
 *
 *   node -r ./src/platform/swc-register.js bench/detect/run.ts [--sizes 10000,100000,1000000]
 *     [--row-bytes 1024] [--page-size 500] [--stages keyset,source,runtime] [--runs 1]
 *     [--profile DIR]   (writes a --cpu-prof profile of each measured child into DIR)
 *     [--v8-flags none|host]   (host: the runtime stage with the local host's V8 flags, src/host/gc-flags.ts)
 */
const STAGES: ReadonlyArray<BenchTask['stage']> = ['keyset', 'source', 'runtime'];
const REGISTER = path.resolve(__dirname, '../../src/platform/swc-register.js');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function positive(name: string, fallback: number): number {
  const raw = flag(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}

function list<T extends string>(name: string, fallback: readonly T[], allowed?: readonly T[]): T[] {
  const raw = flag(name);
  const values = (raw === undefined ? [...fallback] : raw.split(',').map((v) => v.trim())) as T[];
  for (const v of values) if (allowed && !allowed.includes(v)) throw new Error(`--${name}: unknown value ${v} (known: ${allowed.join(', ')})`);
  return values;
}

function runChild(task: BenchTask, profileDir?: string, hostFlags = false): Promise<BenchResult> {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return new Promise((resolve, reject) => {
    // `--v8-flags host`: the runtime stage with the V8 flags `npm start` gives the local host.
    const v8Flags = task.stage === 'runtime' && hostFlags ? LOCAL_HOST_V8_FLAGS : [];
    const child = spawn(process.execPath, [...v8Flags, ...profile, '-r', REGISTER, path.join(__dirname, 'detect.bench.ts'), JSON.stringify(task)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || !line) return reject(new Error(`${task.stage} ${task.rows} exited with ${code}: ${out.trim()}`));
      resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as BenchResult);
    });
  });
}

/** The 1, 5 and 15 minute load averages: figures from a busy machine are not comparable. */
function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const sizes = list('sizes', ['10000', '100000', '1000000']).map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error('--sizes must be positive integers');
  const rowBytes = positive('row-bytes', 1024);
  const pageSize = positive('page-size', 500);
  const runs = positive('runs', 1);
  const stages = list('stages', STAGES, STAGES);
  const profileDir = flag('profile') ? path.resolve(flag('profile') as string) : undefined;
  const v8Flags = flag('v8-flags') ?? 'none';
  if (v8Flags !== 'none' && v8Flags !== 'host') throw new Error(`--v8-flags must be none or host, got ${JSON.stringify(v8Flags)}`);
  const hostFlags = v8Flags === 'host';
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });

  console.log(`node ${process.version}, ${os.cpus().length} cores, load ${loadAverage()}`);
  console.log(`rows of ~${rowBytes} B, page size ${pageSize}, median of ${runs} run(s) per stage\n`);
  const azurite = await startAzurite({ port: 0 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-bench-detect-'));
  const table: Array<{ rows: number; stage: string; perSecond: number; seconds: number; startRss: number; peakRss: number; heap: number }> = [];
  try {
    const prepare = (rows: number) => {
      const dir = fs.mkdtempSync(path.join(root, `rows-${rows}-`));
      const start = performance.now();
      generateSource(dir, rows, rowBytes);
      writeBenchConfig(dir, pageSize);
      const mb = fs.statSync(path.join(dir, 'source.db')).size / 1024 / 1024;
      console.error(`generated ${rows} rows (${mb.toFixed(0)} MB) in ${((performance.now() - start) / 1000).toFixed(1)} s`);
      return dir;
    };
    const task = (stage: BenchTask['stage'], rows: number, dir: string, run: number): BenchTask => ({
      stage, rows, pageSize, configDir: dir, dataDir: path.join(dir, `bus-${run}`), storageConnectionString: azurite.connectionString,
    });
    // Warm-up: compiles the sources into the register hook's cache, so measured children carry no compiler.
    const warm = prepare(2000);
    for (const stage of stages) await runChild(task(stage, 2000, warm, 0));
    fs.rmSync(warm, { recursive: true, force: true });

    for (const rows of sizes) {
      const dir = prepare(rows);
      for (const stage of stages) {
        const results: BenchResult[] = [];
        for (let run = 0; run < runs; run++) {
          const result = await runChild(task(stage, rows, dir, run), profileDir, hostFlags);
          fs.rmSync(path.join(dir, `bus-${run}`), { recursive: true, force: true });
          console.error(`${rows} ${stage} run ${run + 1}: ${result.changesPerSecond} changes/s, ${result.seconds} s, peak RSS ${result.peakRssMb} MB, heap ${result.endHeapMb} MB, load ${loadAverage()}`);
          results.push(result);
        }
        const m = (pick: (r: BenchResult) => number) => median(results.map(pick));
        table.push({ rows, stage, perSecond: m((r) => r.changesPerSecond), seconds: m((r) => r.seconds), startRss: m((r) => r.startRssMb), peakRss: m((r) => r.peakRssMb), heap: m((r) => r.endHeapMb) });
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await azurite.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  console.log(`load at the end ${loadAverage()}\n`);
  console.log('| source rows | stage | changes/s | seconds | RSS before run (MB) | peak RSS (MB) | JS heap at end (MB) |');
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (const r of table) {
    console.log(`| ${r.rows.toLocaleString('en-US')} | ${r.stage} | ${r.perSecond.toLocaleString('en-US')} | ${r.seconds} | ${r.startRss} | ${r.peakRss} | ${r.heap} |`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
