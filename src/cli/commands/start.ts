import { rmSync } from 'node:fs';
import path from 'node:path';
import { forgetPairs } from '../../twoway/forget-pairs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { readSettings } from '../../platform/settings';
import type { JobRunResult } from '../../detect/job-run';
import type { LocalHost } from '../../host/local-host';
import { formatSummary, queueDepths, startProgress, stoppedLine } from '../../host/progress';
import { consoleLogger } from '../../telemetry/logger';
import { packageRoot } from '../package-root';
import { parseConcurrency } from './concurrency-option';
import type { Runtime } from '../../runtime/runtime';
import { clearAppliedHashes, clearDeletions } from './job-state';
import { newResyncToken } from '../../model/watermark-record';
import { withLiveRuns } from './live-runs';
import { PRIORITIES, type Priority } from '../../platform/queue-topology';
import { DEFAULT_CONCURRENCY } from '../../host/processing-mode';
import { lockDataDir } from '../../platform/data-dir-lock';
import { DEFAULT_STALL_SECONDS, settledCount, waitForDrainOrStall } from '../../host/once-wait';
import { formatWaiting, waitingReport } from '../../host/waiting-report';
import { UsageError } from '../cli-error';

export interface HostCommandOptions {
  config: string;
  /** Read the configuration tables (filled by `highwater config push`) instead of the `config` folder. */
  tables?: boolean;
  once?: boolean;
  port: number;
  /** Seconds `--once` waits for the queues to drain. */
  drainTimeout: number;
  /** Seconds `--once` waits without progress (a target in outage, a missing secret) before it gives up. Default 60. */
  stallTimeout: number;
  /** Start over: clear the watermarks of every configured job and (local bus only) the queues. */
  resetState?: boolean;
  /** Processors per work queue; the host's defaults for the priorities not given. */
  concurrency?: Partial<Record<Priority, number>>;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError(`expected a port number 0–65535, got "${value}"`);
  return port;
}

function parsePositiveInt(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return Number(value);
}

/** Adds the options `start` and `demo` share. */
export function hostOptions(command: Command): Command {
  return command
    .option('--once', 'run every enabled job once, drain the work queues, print a summary and exit')
    .option('--port <n>', 'HTTP port on 127.0.0.1 (0: any free port)', parsePort, 7071)
    .option('--drain-timeout <seconds>', 'with --once: how long to wait for the queues to drain', parsePositiveInt, 600)
    .option('--stall-timeout <seconds>', 'with --once: give up when no message has reached its end for this long (a target down, a missing secret)', parsePositiveInt, DEFAULT_STALL_SECONDS)
    .option('--concurrency <n|priority=n,…>', `messages in flight per work queue (default ${PRIORITIES.map((p) => `${p}=${DEFAULT_CONCURRENCY[p]}`).join(',')})`, parseConcurrency);
}

export function registerStartCommands(program: Command): void {
  hostOptions(
    program
      .command('start')
      .description('run the local host: GetChanges on its schedule, the HTTP functions, the queue processors')
      .option('--config <dir>', 'configuration folder', 'config')
      .option('--tables', 'read the configuration from the configuration tables (filled by `highwater config push`) instead of a folder'),
  ).action(async (opts: HostCommandOptions, command: Command) => {
    if (opts.tables && command.getOptionValueSource('config') === 'cli') {
      throw new UsageError('--tables and --config exclude each other: --tables reads the configuration tables, --config a folder');
    }
    process.exitCode = await runHost(opts);
  });
}

/**
 * Runs the local host until Ctrl-C, or with `--once`: every enabled job once (in order), then
 * until the work queues are drained. Resolves with the exit code: 0 when the run completed
 * (messages parked, ignored or dead-lettered are outcomes, not failures), 1 when a job run or
 * the host failed.
 */
export async function runHost(opts: HostCommandOptions): Promise<number> {
  // The host loads here, not with the CLI: the other commands need none of it.
  const [{ startLocalHost }, { describeBus }, { applyLocalHostGcFlags }] = await Promise.all([
    import('../../host/local-host'),
    import('../../bus/create-bus'),
    import('../../host/gc-flags'),
  ]);
  applyLocalHostGcFlags();
  const settings = readSettings();
  const log = consoleLogger;
  const configDir = opts.tables ? undefined : path.resolve(opts.config);
  const began = Date.now();
  // Held until the host holds it: --reset must not delete the bus of another host on this folder.
  const lock = opts.resetState ? lockDataDir(settings.dataDir) : undefined;
  if (opts.resetState && !settings.serviceBusConnectionString && !settings.serviceBusNamespace) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(settings.dataDir, 'bus.sqlite') + suffix, { force: true });
  }
  const host: LocalHost = await startLocalHost({
    ...(configDir === undefined ? {} : { configDir }),
    port: opts.port,
    settings,
    noSchedule: opts.once,
    log,
    concurrency: opts.concurrency,
    ...(opts.resetState ? { beforeStart: async (runtime: Runtime) => log.info(await resetJobsState(runtime)) } : {}),
  }).finally(() => lock?.release());
  log.info(`Highwater local host on ${host.url} — config ${configDir === undefined ? 'from the configuration tables' : path.relative(process.cwd(), configDir) || '.'}, tables: ${host.runtime.storage.description}, bus: ${describeBus(settings)}`);
  // Live: a job's detected and sent counts grow in the progress line while it reads.
  const live = withLiveRuns(host.stats, host.runtime.detection);
  const stopProgress = startProgress(live.view, host.runtime.clock, (line) => console.log(line), { idle: () => workQueuesIdle(host) });
  try {
    if (opts.once) return await runOnce(host, opts, began);
    log.info(`Status page ${host.url}/ · run a job: curl -X POST ${host.url}/api/jobs/<name>/execute · Ctrl-C stops`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    console.log(stoppedLine(live.view, host.runtime.clock.now()));
    log.info('stopping: finishing messages in flight…');
    return 0;
  } finally {
    stopProgress();
    live.stop();
    await host.stop();
  }
}

/** Whether every work queue is empty (nothing active or scheduled) and no processor is busy. */
async function workQueuesIdle(host: Pick<LocalHost, 'processors' | 'runtime'>): Promise<boolean> {
  if (PRIORITIES.some((p) => host.processors[p].busy > 0)) return false;
  for (const p of PRIORITIES) {
    const counts = await host.runtime.bus.counts(host.runtime.settings.queues.work[p]);
    if (counts.active + counts.scheduled > 0) return false;
  }
  return true;
}

/**
 * Forgets what the configured jobs have done, before anything runs: watermarks (and last runs),
 * applied hashes and recorded deletions. Kept, any of them makes the re-created records look
 * sent already (the demo's `--reset` once sent 3 of 2,000 accounts). @returns a notice.
 */
export async function resetJobsState(runtime: Pick<Runtime, 'init' | 'watermarks' | 'storage' | 'couplings'>): Promise<string> {
  const names = runtime.init.config.jobs.map((job) => job.name);
  let hashes = 0;
  for (const name of names) {
    await runtime.watermarks.updateWatermarkByJobName(name, null, null, newResyncToken());
    hashes += await clearAppliedHashes(runtime.storage, name);
  }
  const deletions = await clearDeletions(runtime.storage, new Set(names));
  const pairs = runtime.init.config.pairs.map((pair) => pair.name);
  const forgotten = pairs.length > 0 ? await forgetPairs(runtime.couplings, pairs) : undefined;
  const paired = forgotten ? `; ${forgotten.couplings} couplings and ${forgotten.conflicts} parked conflicts of ${pairs.length} pair(s) forgotten` : '';
  return `reset ${names.length} jobs: watermarks cleared, ${hashes} applied hashes and ${deletions} recorded deletions removed${paired}`;
}

async function runOnce(host: LocalHost, opts: HostCommandOptions, began: number): Promise<number> {
  const { runtime } = host;
  const jobs = runtime.init.config.jobs.filter((j) => j.enabled).sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  const runs: JobRunResult[] = [];
  for (const job of jobs) runs.push(await runtime.detection.runJob(job, { trigger: 'scheduled' }));
  const end = await waitForDrainOrStall({
    clock: runtime.clock,
    drained: (timeoutMs) => host.drained({ timeoutMs }),
    settled: () => settledCount(host.stats),
    stallMs: (opts.stallTimeout ?? DEFAULT_STALL_SECONDS) * 1000,
    timeoutMs: opts.drainTimeout * 1000,
  });
  const depths = await queueDepths(runtime.bus, runtime.settings.queues);
  console.log('\n' + formatSummary({ runs, stats: host.stats, depths, queues: runtime.settings.queues, seconds: (Date.now() - began) / 1000 }));
  if (end === 'drained') return runs.some((r) => r.outcome === 'Failed') ? 1 : 0;
  // The messages stay queued for the next start; say how many wait, for which target and why.
  const targets = new Map(runtime.init.config.jobs.map((j) => [j.name, j.target]));
  const report = await waitingReport({ bus: runtime.bus, queues: runtime.settings.queues, targetOf: (name) => targets.get(name), health: host.targetHealth });
  console.log('\n' + formatWaiting(report).join('\n'));
  console.error(
    end === 'stalled'
      ? `error: no message reached its end for ${opts.stallTimeout ?? DEFAULT_STALL_SECONDS} s (--stall-timeout): ${report.total} message(s) wait in the work queues for the next start`
      : `error: the work queues did not drain within ${opts.drainTimeout} s`,
  );
  return 1;
}

/** The demo configuration folder shipped with the package. */
export function demoConfigDir(): string {
  return path.join(packageRoot(), 'examples', 'demo');
}
