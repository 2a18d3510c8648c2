import type { Command } from 'commander';
import { readSettings, type Settings } from '../../platform/settings';
import type { JobRunResult } from '../../detect/job-run';
import { totalSent } from '../../detect/job-run';
import type { Job } from '../../model/job';
import type { QueueMessage } from '../../model/queue-message';
import type { Runtime, RuntimeOptions } from '../../runtime/runtime';
import type { Logger } from '../../telemetry/logger';
import { UsageError } from '../cli-error';
import { requireJob } from './job-state';
import { durationOf, formatDuration, parseLimit, runAsJson } from './runs';
import { terminalText } from '../../platform/terminal-text';

/** Changes a dry run shows when `--limit` is not given (the detection service's default). */
const DEFAULT_DRY_RUN_LIMIT = 20;

export interface RunCommandDeps {
  /** Default: `readSettings()` from the environment. */
  settings: () => Settings;
  /** Default: `createRuntime` (storage and bus as the settings say, exactly like the host). */
  openRuntime: (options: RuntimeOptions) => Promise<Runtime>;
  /** Results (stdout). Default: `console.log`. */
  print: (line: string) => void;
  /** Notices and warnings (stderr). Default: `console.error`. */
  notice: (line: string) => void;
}

const defaultDeps: RunCommandDeps = {
  settings: () => readSettings(),
  // Loaded on use: the runtime pulls in every connector and adapter, which other commands do not need.
  openRuntime: async (options) => (await import('../../runtime/runtime')).createRuntime(options),
  print: (line) => console.log(terminalText(line)),
  notice: (line) => console.error(terminalText(line)),
};

/**
 * Runtime log lines as CLI notices. Error lines are dropped: the only one detection writes is
 * the failed job, which the command reports itself (once, as its error on stderr).
 */
function cliLogger(notice: (line: string) => void): Logger {
  return { info: (m) => notice(m), warn: (m) => notice(`warning: ${m}`), error: () => {} };
}

function findJob(runtime: Runtime, name: string, configDir: string | undefined): Job {
  return requireJob(runtime.init.config.jobs, name, configDir ?? 'the configuration tables');
}

/** What happens to sent messages: `run` only sends, a host applies them. */
export const APPLY_HINT = '  next       the messages wait in their queues; a running host (highwater start) applies them';

const show = (value: string | null) => value ?? '(none)';

/** The human summary of a run (not a dry run). */
function formatRunSummary(run: JobRunResult): string[] {
  const queues = Object.entries(run.sentByQueue).map(([queue, n]) => `${queue} ${n}`);
  const watermark =
    run.watermarkAfter === run.watermarkBefore
      ? `${show(run.watermarkBefore)} (unchanged)`
      : `${show(run.watermarkBefore)} → ${show(run.watermarkAfter)}`;
  return [
    `job ${run.jobName}: ${run.outcome} in ${formatDuration(durationOf(run))}`,
    `  detected   ${run.detected} (timestamp-only ${run.timeStamps})`,
    `  sent       ${totalSent(run)}${queues.length > 0 ? ` (${queues.join(', ')})` : ''}`,
    `  watermark  ${watermark}`,
    ...formatSkipped(run),
    ...(totalSent(run) > 0 ? [APPLY_HINT] : []),
  ];
}

/** Rows skipped under `skipFailedRows`: the count, then the listed ones with why. */
function formatSkipped(run: JobRunResult, label = '  skipped    '): string[] {
  if (!run.skipped) return [];
  const listed = run.skippedRows ?? [];
  const more = run.skipped > listed.length ? ` (the first ${listed.length} listed)` : '';
  return [
    `${label}${run.skipped} row${run.skipped === 1 ? '' : 's'} that could not become a message${more}:`,
    ...listed.map((row) => `    ${row.sourceKey ?? '(key unreadable)'} at ${row.changeTracker}: ${row.error}`),
  ];
}

function formatMessage(message: QueueMessage, index: number): string[] {
  const lines = [
    `#${index + 1} ${message.action} ${message.sourceKey} → ${JSON.stringify(message.targetKey)}  change tracker ${message.changeTracker}`,
  ];
  const fields = Object.entries(message.fields);
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  for (const [name, value] of fields) lines.push(`    ${name.padEnd(width)}  ${JSON.stringify(value)}`);
  if (message.actionParameters) lines.push(`    action parameters  ${JSON.stringify(message.actionParameters)}`);
  return lines;
}

/** The human output of a dry run: each message it would send, then what was left alone. */
function formatDryRun(run: JobRunResult, limit: number): string[] {
  const preview = run.preview ?? [];
  const lines = [`dry run of job ${run.jobName}: nothing is sent, the watermark stays ${show(run.watermarkBefore)}`];
  preview.forEach((message, i) => lines.push(...formatMessage(message, i)));
  if (run.outcome === 'Failed') return lines;
  const more = preview.length >= limit ? ` (--limit ${limit} reached: more may follow)` : '';
  lines.push(`${preview.length} message${preview.length === 1 ? '' : 's'} would be sent${more}; timestamp-only changes: ${run.timeStamps}`);
  lines.push(...formatSkipped(run, 'would skip '));
  return lines;
}

/**
 * `highwater run JOB [--config DIR] [--dry-run [--limit N]] [--json]`: runs one job now, as the
 * timer would (trigger `manual`, a run record written). `--dry-run` prints the messages instead
 * of sending them; it moves no watermark and writes no run record. Exit codes: 0 succeeded,
 * 1 the run failed (or storage / configuration did), 2 bad flags or an unknown job.
 */
export function registerRunCommand(program: Command, deps: RunCommandDeps = defaultDeps): void {
  program
    .command('run')
    .description('run one job now and print what it detected and sent (--dry-run: print the messages, send nothing)')
    .argument('<job>', 'job name')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .option('--dry-run', 'read and map the changes, print them; send nothing, keep the watermark, write no run record')
    .option('--limit <n>', `with --dry-run: most changes shown (default ${DEFAULT_DRY_RUN_LIMIT})`)
    .option('--json', 'print JSON')
    .action(async (jobName: string, options: { config?: string; dryRun?: boolean; limit?: string; json?: boolean }) => {
      if (options.limit !== undefined && !options.dryRun) throw new UsageError('--limit applies to --dry-run only');
      const limit = options.limit === undefined ? DEFAULT_DRY_RUN_LIMIT : parseLimit(options.limit);
      const runtime = await deps.openRuntime({
        settings: deps.settings(),
        ...(options.config === undefined ? {} : { configDir: options.config }),
        log: cliLogger(deps.notice),
      });
      let run: JobRunResult;
      try {
        await runtime.init.ensureInitialized();
        const job = findJob(runtime, jobName, options.config);
        run = await runtime.detection.runJob(job, { trigger: 'manual', dryRun: options.dryRun ?? false, limit });
      } finally {
        await runtime.close();
      }
      const lines = options.json ? [JSON.stringify(runAsJson(run), null, 2)] : options.dryRun ? formatDryRun(run, limit) : formatRunSummary(run);
      for (const line of lines) deps.print(line);
      if (run.outcome === 'Failed') throw new Error(`job ${run.jobName} failed: ${run.error ?? 'unknown error'}`);
    });
}
