/**
 * Size and cold import of a Functions app folder: what a deployment uploads and what the worker
 * loads before the first invocation. For each `label=folder`:
 * - size: files and bytes under the folder (symbolic links followed), and the zip azd would upload;
 * - cold import: `require('<folder>/dist/functions/index.js')` in a fresh `node`, `--runs` times
 *   (default 7), with `@azure/functions-core` stood in as the worker provides it; the median time
 *   and the median resident set size (RSS) after the import.
 *
 *   node -r ./src/platform/swc-register.js bench/package/measure.ts before=<folder> after=.deploy [--runs 7]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const STAND_IN = path.join(__dirname, 'functions-core-stand-in.js');

interface Size {
  files: number;
  bytes: number;
}

function sizeOf(dir: string): Size {
  const total: Size = { files: 0, bytes: 0 };
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at)) {
      const file = path.join(at, entry);
      const stat = fs.statSync(file);
      if (stat.isDirectory()) walk(file);
      else if (stat.isFile()) {
        total.files++;
        total.bytes += stat.size;
      }
    }
  };
  walk(dir);
  return total;
}

/** Bytes of the folder zipped (deflate, symbolic links followed), as azd's zip deploy uploads it. */
function zippedBytes(dir: string): number {
  const zip = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hw-zip-')), 'app.zip');
  try {
    execFileSync('zip', ['-qr', zip, '.'], { cwd: dir, maxBuffer: 1024 * 1024 * 64 });
    return fs.statSync(zip).size;
  } finally {
    fs.rmSync(path.dirname(zip), { recursive: true, force: true });
  }
}

interface Run {
  ms: number;
  rssMiB: number;
}

function coldImport(dir: string): Run {
  const entry = path.join(dir, 'dist/functions/index.js');
  const script = `const t = process.hrtime.bigint(); require(${JSON.stringify(entry)}); const ms = Number(process.hrtime.bigint() - t) / 1e6; console.log(JSON.stringify({ ms, rssMiB: process.memoryUsage().rss / 1048576 }));`;
  const run = spawnSync(process.execPath, ['--require', STAND_IN, '-e', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, APPLICATIONINSIGHTS_CONNECTION_STRING: '' } });
  if (run.status !== 0) throw new Error(`${entry} did not load: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as Run;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

function main(): void {
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(process.argv[runsAt + 1]) : 7;
  const targets = process.argv.slice(2).filter((arg, i, all) => arg.includes('=') && all[i - 1] !== '--runs');
  if (targets.length === 0 || !Number.isInteger(runs) || runs < 1) throw new Error('usage: measure.ts label=folder … [--runs n]');
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}, ${runs} runs each`);
  console.log('| app | files | size (MiB) | zipped (MiB) | cold import (ms, median) | RSS after import (MiB, median) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const target of targets) {
    const [label, folder] = target.split('=');
    const dir = path.resolve(folder);
    const size = sizeOf(dir);
    const zipped = zippedBytes(dir);
    const samples = Array.from({ length: runs }, () => coldImport(dir));
    console.log(`| ${label} | ${size.files} | ${mib(size.bytes)} | ${mib(zipped)} | ${median(samples.map((s) => s.ms)).toFixed(0)} | ${median(samples.map((s) => s.rssMiB)).toFixed(0)} |`);
  }
}

main();
