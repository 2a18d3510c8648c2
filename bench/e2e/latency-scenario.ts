import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startAzurite } from '../../src/storage/azurite';
import { LOCAL_HOST_V8_FLAGS } from '../../src/host/gc-flags';
import { UsageError } from './crm-erp-scenario';
import { pushSmallChange } from './latency-push';
import { createLatencyTarget, percentile, prepareLatencyFolder, readLatencies, SMALL_PUSH_SECRET_SETTING, SMALL_SOURCE_TABLE, writeLatencyConfig, writeSmallChange, type LatencyMode } from './latency-workload';

/**
 * The latency scenario (`npm run bench -- --scenario latency`): `highwater start` in a child
 * process (its schedule every second, a fresh Azurite and data folder per measurement) while this
 * process writes one change to the small job's source every `--interval` ms; latency = applied
 * at the target (its own clock, by trigger) − written at the source. With `--flood N` (default
 * 100,000) a job of the same priority has a first load of N rows at the same time: the figures
 * are the small job's latency while the flood is under way, and the flood's own throughput.
 * `--limits` measures each `HIGHWATER_QUEUE_DEPTH_LIMIT` in turn, alternating within every run.
 * `--modes poll,push` measures how the small job's changes arrive, in turn: read by its poll
 * (every second), or posted to `POST /api/hooks/b-small` right after they are written (signed,
 * generic format; its poll then runs once at the start only).
 *
 *   npm run bench -- --scenario latency [--modes poll] [--flood 100000] [--limits 5000,0] [--runs 1]
 *     [--interval 200] [--seconds 20 (without a flood: how long changes are written)]
 */
const REPO = path.resolve(__dirname, '../..');
const REGISTER = path.join(REPO, 'src/platform/swc-register.js');
const CLI = path.join(REPO, 'src/cli/main.ts');
const FLAGS = ['scenario', 'modes', 'flood', 'limits', 'runs', 'interval', 'seconds'];
const MODES: readonly LatencyMode[] = ['poll', 'push'];

interface Options { modes: LatencyMode[]; flood: number; limits: string[]; runs: number; intervalMs: number; seconds: number }

function parse(argv: readonly string[]): Options {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = /^--([a-z-]+)$/.exec(argv[i])?.[1];
    if (!name || !FLAGS.includes(name)) throw new UsageError(`unknown argument "${argv[i]}" for --scenario latency (known: ${FLAGS.map((f) => `--${f}`).join(', ')})`);
    if (argv[i + 1] === undefined) throw new UsageError(`--${name} needs a value`);
    values.set(name, argv[i + 1]);
  }
  const count = (name: string, fallback: number, min: number) => {
    const text = values.get(name) ?? String(fallback);
    if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${text}"`);
    return Number(text);
  };
  const limits = (values.get('limits') ?? '5000,0').split(',');
  const bad = limits.find((l) => !/^\d+$/.test(l));
  if (bad !== undefined) throw new UsageError(`--limits must be whole numbers (0 = off), comma-separated, got "${bad}"`);
  const modes = (values.get('modes') ?? 'poll').split(',');
  const badMode = modes.find((m) => !MODES.includes(m as LatencyMode));
  if (badMode !== undefined) throw new UsageError(`--modes must be poll, push or both (comma-separated), got "${badMode}"`);
  return { modes: modes as LatencyMode[], flood: count('flood', 100_000, 0), limits, runs: count('runs', 1, 1), intervalMs: count('interval', 200, 10), seconds: count('seconds', 20, 1) };
}

/** Starts the host; resolves once it says it is listening, with its URL. */
function startHost(dir: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...LOCAL_HOST_V8_FLAGS, '-r', REGISTER, CLI, 'start', '--config', dir, '--port', '0'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(path.join(dir, 'host.log'));
  child.stderr?.pipe(log);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      const url = /Highwater local host on (http:\/\/\S+)/.exec(chunk.toString())?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`the host exited with ${code} before it started; log: ${path.join(dir, 'host.log')}`)));
  });
}

function stopHost(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Measured { mode: LatencyMode; limit: string; changes: number; p50: number; p95: number; max: number; floodRowsPerSecond?: number; floodSeconds?: number; load: string }

async function measure(dir: string, options: Options, limit: string, mode: LatencyMode): Promise<Measured> {
  writeLatencyConfig(dir, options.flood > 0, undefined, mode);
  createLatencyTarget(dir);
  const secret = randomBytes(16).toString('hex');
  const small = new Database(path.join(dir, 'small.db'));
  small.exec(`DELETE FROM ${SMALL_SOURCE_TABLE}`);
  const azurite = await startAzurite({ port: 0 });
  const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AzureWebJobsStorage: azurite.connectionString, HIGHWATER_DATA_DIR: dataDir, GetChangesSchedule: '* * * * * *', HIGHWATER_QUEUE_DEPTH_LIMIT: limit, [SMALL_PUSH_SECRET_SETTING]: secret };
  const load = os.loadavg()[0].toFixed(2);
  let host: ChildProcess | undefined;
  try {
    const launched = await startHost(dir, env);
    host = launched.child;
    const started = Date.now();
    let written = 0;
    // Writes until the flood is applied (or for --seconds), then waits for every change to arrive.
    for (;;) {
      if (mode === 'push') await pushSmallChange(small, ++written, launched.url, secret);
      else writeSmallChange(small, ++written);
      await sleep(options.intervalMs);
      if (written % 10 !== 0) continue;
      const reading = readLatencies(dir);
      if (options.flood > 0 ? reading.flood.rows >= options.flood : Date.now() - started >= options.seconds * 1000) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`no end after 30 min: ${reading.flood.rows} flood rows applied`);
    }
    const waitUntil = Date.now() + 60_000;
    while (readLatencies(dir).latenciesMs.length < written) {
      if (Date.now() > waitUntil) throw new Error('not every small change arrived within 60 s');
      await sleep(100);
    }
    const reading = readLatencies(dir);
    // During the flood: the changes written before its last row was applied.
    const rows = small.prepare(`SELECT written_at FROM ${SMALL_SOURCE_TABLE} ORDER BY version`).all() as Array<{ written_at: number }>;
    const during = reading.latenciesMs.filter((_, i) => options.flood === 0 || rows[i].written_at <= (reading.flood.lastAt ?? Infinity));
    const floodSeconds = reading.flood.lastAt !== undefined ? (reading.flood.lastAt - started) / 1000 : undefined;
    return {
      mode, limit, changes: during.length, p50: percentile(during, 50), p95: percentile(during, 95), max: Math.max(...during), load,
      ...(floodSeconds ? { floodSeconds: Math.round(floodSeconds * 10) / 10, floodRowsPerSecond: Math.round(reading.flood.rows / floodSeconds) } : {}),
    };
  } finally {
    if (host) await stopHost(host);
    small.close();
    await azurite.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runLatencyScenario(argv: readonly string[]): Promise<void> {
  const options = parse(argv);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-bench-latency-'));
  try {
    prepareLatencyFolder(root, options.flood);
    console.log(`node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`small job: one change every ${options.intervalMs} ms (${options.modes.join(', ')}); flood: ${options.flood} rows of ~1 KB, same priority (normal); schedule every second\n`);
    const results: Measured[] = [];
    for (let run = 1; run <= options.runs; run++) {
      for (const mode of options.modes) for (const limit of options.limits) {
        const m = await measure(root, options, limit, mode);
        console.error(`run ${run}, ${mode}, limit ${limit}: p50 ${m.p50} ms, p95 ${m.p95} ms, max ${m.max} ms over ${m.changes} changes` +
          (m.floodRowsPerSecond ? `; flood ${m.floodRowsPerSecond} rows/s (${m.floodSeconds} s)` : '') + `; load ${m.load}`);
        results.push(m);
      }
    }
    console.log(`load at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    console.log('| mode | HIGHWATER_QUEUE_DEPTH_LIMIT | changes | p50 ms | p95 ms | max ms | flood rows/s | flood s | load (1 min) at start |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const m of results) console.log(`| ${m.mode} | ${m.limit} | ${m.changes} | ${m.p50} | ${m.p95} | ${m.max} | ${m.floodRowsPerSecond ?? ''} | ${m.floodSeconds ?? ''} | ${m.load} |`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
