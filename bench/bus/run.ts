import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { RESULT_PREFIX, SKIPPED_PREFIX, type BenchResult, type Workload } from './workload';

/**
 * The bus benchmark: the local bus against BullMQ on the local Redis, same payload and
 * concurrency, each run in its own child process (separate peak RSS), alternating adapters and
 * reporting the median of `--runs` runs. Run without a build:
 *
 *   node -r ./src/platform/swc-register.js bench/bus/run.ts [--messages 100000] [--runs 3]
 *     [--concurrency 16] [--prefetch 16] [--body-bytes 1024] [--synchronous NORMAL|FULL]
 *
 * (`npm run bench:bus -- <flags>`; `--help` prints this usage.)
 *
 * A small warm-up pass per adapter compiles the sources into the register hook's cache first,
 * so the measured children do not carry the compiler in their RSS.
 */
interface Config {
  label: string;
  worker: string;
  workload: Workload;
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** The local bus's `synchronous` option; undefined (the bus's default) when not given. */
function synchronousFlag(): 'NORMAL' | 'FULL' | undefined {
  const i = process.argv.indexOf('--synchronous');
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (value !== 'NORMAL' && value !== 'FULL') throw new Error(`--synchronous must be NORMAL or FULL, got ${JSON.stringify(value)}`);
  return value;
}

const USAGE = `usage: npm run bench:bus -- [--messages 100000] [--runs 3] [--concurrency 16] [--prefetch 16]
  [--body-bytes 1024] [--synchronous NORMAL|FULL]
The local bus (prefetch 1 and --prefetch) against BullMQ on the local Redis; --synchronous sets the
local bus's option of that name (default NORMAL).`;

const REGISTER = path.resolve(__dirname, '../../src/platform/swc-register.js');

function runChild(config: Config, workload: Workload): Promise<BenchResult | string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, path.join(__dirname, config.worker), JSON.stringify(workload)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX) || l.startsWith(SKIPPED_PREFIX));
      if (line?.startsWith(SKIPPED_PREFIX)) return resolve(line.slice(SKIPPED_PREFIX.length));
      if (code !== 0 || !line) return reject(new Error(`${config.label} exited with ${code}: ${out.trim()}`));
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
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const synchronous = synchronousFlag();
  const local = synchronous ? `local bus (${synchronous})` : 'local bus';
  const base = {
    messages: flag('messages', 100_000),
    concurrency: flag('concurrency', 16),
    bodyBytes: flag('body-bytes', 1024),
    sendChunk: 1000,
  };
  const runs = flag('runs', 3);
  const prefetch = flag('prefetch', 16);
  const configs: Config[] = [
    { label: `${local}, prefetch 1`, worker: 'local-bus.bench.ts', workload: { ...base, prefetch: 1, synchronous } },
    { label: `${local}, prefetch ${prefetch}`, worker: 'local-bus.bench.ts', workload: { ...base, prefetch, synchronous } },
    { label: 'BullMQ', worker: 'bullmq.bench.ts', workload: { ...base, prefetch: 1 } },
  ];
  console.log(`node ${process.version}, ${os.cpus().length} cores, load ${loadAverage()}`);
  console.log(`${base.messages} messages of ${base.bodyBytes} B, ${base.concurrency} receivers, median of ${runs} runs\n`);
  const skipped = new Map<string, string>();
  for (const config of configs) {
    const warm = await runChild(config, { ...config.workload, messages: Math.min(2000, base.messages) });
    if (typeof warm === 'string') skipped.set(config.label, warm);
  }
  const results = new Map<string, BenchResult[]>(configs.map((c) => [c.label, []]));
  for (let run = 0; run < runs; run++) {
    for (const config of configs.filter((c) => !skipped.has(c.label))) {
      const result = await runChild(config, config.workload);
      if (typeof result === 'string') throw new Error(`${config.label} skipped mid-run: ${result}`);
      results.get(config.label)?.push(result);
      console.error(`run ${run + 1} ${config.label}: ${result.totalPerSecond} msgs/s, ${result.peakRssMb} MB, load ${loadAverage()}`);
    }
  }
  const rows = configs.map((c) => {
    const r = results.get(c.label) ?? [];
    const m = (pick: (x: BenchResult) => number) => median(r.map(pick));
    return { label: c.label, send: m((x) => x.sendPerSecond), consume: m((x) => x.consumePerSecond), total: m((x) => x.totalPerSecond), rss: m((x) => x.peakRssMb) };
  });
  console.log('| adapter | send msgs/s | receive+complete msgs/s | end-to-end msgs/s | peak RSS MB |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    if (skipped.has(row.label)) console.log(`| ${row.label} | skipped: ${skipped.get(row.label)} | | | |`);
    else console.log(`| ${row.label} | ${row.send} | ${row.consume} | ${row.total} | ${row.rss} |`);
  }
  console.log(`\nload at the end ${loadAverage()}`);
  const bull = rows.find((r) => r.label === 'BullMQ');
  if (bull && !skipped.has('BullMQ')) {
    for (const row of rows.filter((r) => r !== bull)) {
      console.log(`\n${row.label} / BullMQ, end-to-end: ${(row.total / bull.total).toFixed(2)}x`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
