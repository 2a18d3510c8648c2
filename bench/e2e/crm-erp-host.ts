import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LOCAL_HOST_V8_FLAGS } from '../../src/host/gc-flags';

/**
 * Runs `highwater start --once` on a config folder the way a user runs it — its own process, the
 * V8 flags `npm start` gives the local host, a fresh data folder — and measures it from outside:
 * wall time from spawn to exit, the child's user+system CPU time and peak RSS (VmHWM) sampled
 * from `/proc/<pid>` every 100 ms until it exits, and the `--once` summary it prints.
 */
const REPO = path.resolve(__dirname, '../..');
const REGISTER = path.join(REPO, 'src/platform/swc-register.js');
const CLI = path.join(REPO, 'src/cli/main.ts');
const SAMPLE_MS = 100;

export interface HostTask {
  configDir: string;
  /** Fresh folder for the local bus (`HIGHWATER_DATA_DIR`). */
  dataDir: string;
  /** Table storage (an Azurite of the benchmark's own, fresh per run: empty watermarks); unset with `localTables`. */
  storageConnectionString?: string;
  /** `HIGHWATER_LOCAL_TABLES` for the host (its tables in the fresh data folder). */
  localTables?: string;
  /** The host's stdout and stderr go here. */
  logFile: string;
  /** Passed on as `--concurrency`. */
  concurrency?: string;
  /** Node.js flags besides the host's V8 flags (`--cpu-prof …`). */
  nodeFlags?: readonly string[];
}

/** What the `--once` summary says (every count as printed; labels not known here are kept as printed). */
export interface OnceSummary {
  seconds: number;
  /** job → outcome, detected. */
  jobs: Record<string, { outcome: string; detected: number }>;
  /** queue → outcome (Success, Ignored, …) → messages (before per-message counts: deliveries). */
  processed: Record<string, Record<string, number>>;
  /** queue → every delivery processed, retries included (absent in summaries that counted deliveries under `processed`). */
  attempts: Record<string, number>;
  /** "Where messages ended": {@link FINAL_ENDS} and the retries (retried, released, abandoned), other labels as printed. */
  ended: Record<string, number>;
  /** queue → [active, scheduled, dead-letter]. */
  queues: Record<string, [number, number, number]>;
}

export interface HostRun {
  exitCode: number | null;
  wallSeconds: number;
  userSeconds: number;
  systemSeconds: number;
  peakRssMb: number;
  summary: OnceSummary;
}

const ENDED_LABELS: Record<string, string> = {
  'applied to the target': 'applied',
  'ignored (outdated)': 'ignored',
  'parked (dependency missing)': 'parked',
  'dead-lettered': 'deadLettered',
  'superseded (newer in batch)': 'superseded',
  // Attempts, not where a message ended: today's tree says "retried later" / "released for redelivery", before it "abandoned for retry".
  'retried later': 'retried',
  'released for redelivery': 'released',
  'abandoned for retry': 'abandoned',
  // A copy scheduled while the target is in outage: an attempt put off, not where a message ended.
  'waiting for their target': 'deferred',
};

/** Labels of "Where messages ended" that are a message's last place (each message counted once), not a retry. */
export const FINAL_ENDS = ['applied', 'superseded', 'ignored', 'parked', 'deadLettered'];

/** Parses the summary `highwater start --once` prints last (src/host/progress.ts `formatSummary`). */
export function parseOnceSummary(out: string): OnceSummary {
  const start = out.lastIndexOf('Highwater run summary (');
  if (start < 0) throw new Error('the host printed no --once summary');
  const lines = out.slice(start).split('\n');
  const summary: OnceSummary = { seconds: Number(/\(([\d.]+) s\)/.exec(lines[0])?.[1]), jobs: {}, processed: {}, attempts: {}, ended: {}, queues: {} };
  let section = '';
  for (const line of lines.slice(1)) {
    if (!line.startsWith('  ')) {
      section = line.trim() || section;
      continue;
    }
    const text = line.trim();
    if (section === 'Jobs') {
      const m = /^(\S+)\s+(\S+)\s+detected\s+(\d+)/.exec(text);
      if (m) summary.jobs[m[1]] = { outcome: m[2], detected: Number(m[3]) };
    } else if (section.startsWith('Processed')) {
      // `<queue>  Success 9  Ignored 1 …  · attempts 12` (the attempts part only since counts are per message).
      const [counted, attempts] = text.split(' · attempts ');
      const [queue, ...rest] = counted.trim().split(/\s+/);
      if (attempts !== undefined) summary.attempts[queue] = Number(attempts);
      const counts: Record<string, number> = {};
      for (let i = 0; i + 1 < rest.length; i += 2) counts[rest[i]] = Number(rest[i + 1]);
      summary.processed[queue] = counts;
    } else if (section === 'Where messages ended') {
      const m = /^(.+?)\s+(\d+)(\s+→.*)?$/.exec(text);
      if (m) summary.ended[ENDED_LABELS[m[1]] ?? m[1]] = Number(m[2]);
    } else if (section.startsWith('Queues now')) {
      const m = /^(\S+)\s+(\d+) \/ (\d+) \/ (\d+)$/.exec(text);
      if (m) summary.queues[m[1]] = [Number(m[2]), Number(m[3]), Number(m[4])];
    }
  }
  return summary;
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * utime and stime of a process, or of one of its threads (`thread`: its id), in seconds
 * (`/proc/<pid>[/task/<thread>]/stat` fields 14 and 15); undefined once it is gone or off Linux.
 */
export function cpuSeconds(pid: number, thread?: number): { user: number; system: number } | undefined {
  try {
    const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / ticksPerSecond(), system: Number(fields[12]) / ticksPerSecond() };
  } catch {
    return undefined;
  }
}

function peakRssKb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function runHostOnce(task: HostTask, onProgress: (line: string) => void): Promise<HostRun> {
  const args = [...LOCAL_HOST_V8_FLAGS, ...(task.nodeFlags ?? []), '-r', REGISTER, CLI, 'start', '--once', '--config', task.configDir, '--port', '0', '--drain-timeout', '3600'];
  if (task.concurrency) args.push('--concurrency', task.concurrency);
  const env: NodeJS.ProcessEnv = { ...process.env, HIGHWATER_DATA_DIR: task.dataDir };
  delete env.AzureWebJobsStorage;
  if (task.storageConnectionString) env.AzureWebJobsStorage = task.storageConnectionString;
  if (task.localTables) env.HIGHWATER_LOCAL_TABLES = task.localTables;
  const log = fs.createWriteStream(task.logFile);
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: task.configDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid as number;
  let cpu = { user: 0, system: 0 };
  let rssKb = 0;
  const sample = () => {
    cpu = cpuSeconds(pid) ?? cpu;
    rssKb = peakRssKb(pid) ?? rssKb;
  };
  const sampler = setInterval(sample, SAMPLE_MS);
  let out = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    out += text;
    log.write(text);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (/^\[\d\d:\d\d:\d\d\] detected/.test(line)) onProgress(line);
  });
  child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // The process is reaped by 'exit' (its /proc entry gone): the last sample, ≤ 100 ms old, stands.
    let wallSeconds = 0;
    child.on('exit', () => {
      wallSeconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
    });
    child.on('close', (code) => {
      log.end();
      try {
        const summary = parseOnceSummary(out);
        resolve({ exitCode: code, wallSeconds, userSeconds: cpu.user, systemSeconds: cpu.system, peakRssMb: rssKb / 1024, summary });
      } catch (err) {
        reject(new Error(`host exited with ${code} and ${(err as Error).message}; log: ${task.logFile}`));
      }
    });
  });
}
