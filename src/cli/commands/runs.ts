import type { Command } from 'commander';
import type { JobRunResult } from '../../detect/job-run';
import { totalSent } from '../../detect/job-run';
import { RUNS_TABLE, RunLogStore } from '../../detect/run-log-store';
import { tableKeyProblem } from '../../storage/table-key';
import { runOutcomeText } from '../../host/status/run-outcome';
import { UsageError } from '../cli-error';
import { defaultStorageCommandDeps, withStorage, type StorageCommandDeps } from './config';

/** Runs listed by `highwater runs` when `--limit` is not given. */
const DEFAULT_RUNS_LIMIT = 20;

/** `--limit` as a positive integer. @throws UsageError naming the flag otherwise. */
export function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(limit) || limit < 1) {
    throw new UsageError(`--limit must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return limit;
}

/** `850 ms`, `12.4 s`, `3m 05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

export function durationOf(run: Pick<JobRunResult, 'startedAt' | 'endedAt'>): number {
  return run.endedAt.getTime() - run.startedAt.getTime();
}

/**
 * A run as JSON: dates as ISO strings, with `durationMs` and the total `sent` added. The job is
 * `job`, as ExecuteJob and `/api/status` name it; `jobName` (this command's name for it before)
 * stays as a deprecated alias, so that scripts reading it keep working.
 */
export function runAsJson(run: JobRunResult): Record<string, unknown> {
  const { preview, jobName, retryAt, ...rest } = run;
  return {
    job: jobName,
    jobName,
    ...rest,
    startedAt: run.startedAt.toISOString(),
    endedAt: run.endedAt.toISOString(),
    durationMs: durationOf(run),
    sent: totalSent(run),
    error: run.error ?? null,
    ...(retryAt ? { retryAt: retryAt.toISOString() } : {}),
    ...(preview ? { preview } : {}),
  };
}


/** A fixed-width table, newest first: job, trigger, started, duration, detected, sent, outcome, error. */
export function formatRunsTable(runs: readonly JobRunResult[]): string[] {
  const header = ['job', 'trigger', 'started', 'duration', 'detected', 'sent', 'outcome', 'error'];
  const numeric = new Set([3, 4, 5]);
  const rows = runs.map((r) => [
    r.jobName,
    r.trigger,
    r.startedAt.toISOString(),
    formatDuration(durationOf(r)),
    String(r.detected),
    String(totalSent(r)),
    runOutcomeText(r),
    r.error ?? '',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : numeric.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `highwater runs [JOB] [--limit N] [--json]`: the latest job runs from the `runs` table, newest first. */
export function registerRunsCommand(program: Command, deps: StorageCommandDeps = defaultStorageCommandDeps): void {
  program
    .command('runs')
    .description('list the latest job runs (all jobs, or one), newest first')
    .argument('[job]', 'only the runs of this job')
    .option('--limit <n>', `most runs listed (default ${DEFAULT_RUNS_LIMIT})`)
    .option('--json', 'print JSON')
    .action(async (job: string | undefined, options: { limit?: string; json?: boolean }) => {
      const limit = options.limit === undefined ? DEFAULT_RUNS_LIMIT : parseLimit(options.limit);
      if (job !== undefined) {
        const problem = tableKeyProblem(job);
        if (problem) throw new UsageError(`job name ${JSON.stringify(job)} ${problem}`);
      }
      const runs = await withStorage(deps, async (storage) => new RunLogStore(await storage.table(RUNS_TABLE)).latest(job, limit));
      if (options.json) return deps.print(JSON.stringify(runs.map(runAsJson), null, 2));
      if (runs.length === 0) return deps.print(job === undefined ? 'no runs recorded' : `no runs of job ${JSON.stringify(job)} recorded`);
      for (const line of formatRunsTable(runs)) deps.print(line);
    });
}
