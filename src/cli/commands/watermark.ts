import type { Command } from 'commander';
import { WatermarkService } from '../../detect/watermark-service';
import { errorMessage } from '../../platform/errors';
import type { WatermarkRecord } from '../../model/watermark-record';
import { parseWatermarkType, WatermarkValue } from '../../model/watermark-value';
import { tableKeyProblem } from '../../storage/table-key';
import type { TableStorage } from '../../storage/table-store';
import { UsageError } from '../cli-error';
import { defaultStorageCommandDeps, withStorage, type StorageCommandDeps } from './config';
import { clearAppliedHashes, requireJob, storedJobs, type StoredJob } from './job-state';

function checkJobName(job: string): void {
  const problem = tableKeyProblem(job);
  if (problem) throw new UsageError(`job name ${JSON.stringify(job)} ${problem}`);
}

function asJson(record: WatermarkRecord): Record<string, unknown> {
  return { jobName: record.jobName, watermark: record.watermark, lastCronRun: record.lastCronRun?.toISOString() ?? null, persisted: record.persisted };
}

/** The configured job `name`: from `--config DIR` when given, else from the configuration tables. */
async function configuredJob(storage: TableStorage, name: string, configDir: string | undefined): Promise<StoredJob> {
  if (configDir === undefined) return requireJob(await storedJobs(storage), name, 'the configuration tables');
  const { loadConfigFolder } = await import('../../config/load-config');
  const jobs = (await loadConfigFolder(configDir)).jobs.map((j) => ({ name: j.name, watermarkType: j.watermark.type }));
  return requireJob(jobs, name, configDir);
}

/**
 * `--to` in the canonical form of the job's watermark type, so that what is stored is what the
 * next run can read. @throws UsageError naming the value, the job and the type.
 */
function checkedWatermark(job: StoredJob, value: string): string {
  const type = job.watermarkType === undefined ? undefined : parseWatermarkType(job.watermarkType);
  if (type === undefined) return value;
  try {
    return WatermarkValue.canonicalize(type, value);
  } catch (err) {
    throw new UsageError(`--to: ${errorMessage(err)} (job ${job.name} has watermark type ${type})`);
  }
}

/** A fixed-width table: job, watermark, last cron run (`-` for none). */
function formatWatermarkTable(records: readonly WatermarkRecord[]): string[] {
  if (records.length === 0) return ['no watermarks stored'];
  const header = ['job', 'watermark', 'last cron run'];
  const rows = records.map((r) => [r.jobName, r.watermark ?? '-', r.lastCronRun?.toISOString() ?? '-']);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}

/** `highwater watermark list | get JOB | reset JOB [--to VALUE]` on the `watermark` table. */
export function registerWatermarkCommands(program: Command, deps: StorageCommandDeps = defaultStorageCommandDeps): void {
  const watermark = program.command('watermark').description("inspect and reset jobs' high-water marks");
  const open = <T>(fn: (service: WatermarkService) => Promise<T>) => withStorage(deps, async (storage) => fn(await WatermarkService.open(storage)));

  watermark
    .command('list')
    .description('every stored watermark')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const records = [...(await open((service) => service.getAllWatermarks())).values()];
      if (options.json) deps.print(JSON.stringify(records.map(asJson), null, 2));
      else for (const line of formatWatermarkTable(records)) deps.print(line);
    });

  watermark
    .command('get')
    .description("one job's watermark and last scheduled run")
    .argument('<job>', 'job name')
    .option('--config <dir>', 'check the job against this config folder (default: the configuration tables)')
    .option('--json', 'print JSON')
    .action(async (job: string, options: { config?: string; json?: boolean }) => {
      checkJobName(job);
      const record = await withStorage(deps, async (storage) => {
        await configuredJob(storage, job, options.config);
        return (await WatermarkService.open(storage)).getWatermarkByJobName(job);
      });
      if (options.json) return deps.print(JSON.stringify(asJson(record), null, 2));
      if (!record.persisted) return deps.print(`${job}: no watermark stored (the job is due and reads everything)`);
      deps.print(`${job}: watermark ${record.watermark ?? '(none: next run reads everything)'}, last cron run ${record.lastCronRun?.toISOString() ?? '(never: due)'}`);
    });

  watermark
    .command('reset')
    .description("clear a job's watermark and applied hashes (its next run reads and sends everything), or set the watermark with --to")
    .argument('<job>', 'job name (must be configured)')
    .option('--to <value>', "set the watermark to this value (of the job's watermark type) instead of clearing it")
    .option('--keep-applied-hashes', 'keep the applied hashes: records unchanged since they were last applied are not sent again')
    .option('--config <dir>', 'check the job against this config folder (default: the configuration tables)')
    .action(async (job: string, options: { to?: string; keepAppliedHashes?: boolean; config?: string }) => {
      checkJobName(job);
      if (options.to !== undefined && options.to.trim() === '') throw new UsageError('--to needs a value; omit it to clear the watermark');
      const { value, hashes } = await withStorage(deps, async (storage) => {
        const configured = await configuredJob(storage, job, options.config);
        const to = options.to === undefined ? undefined : checkedWatermark(configured, options.to);
        await (await WatermarkService.open(storage)).resetWatermark(job, to);
        return { value: to, hashes: options.keepAppliedHashes ? undefined : await clearAppliedHashes(storage, job) };
      });
      const what = value === undefined ? `${job}: watermark cleared; the next run reads everything` : `${job}: watermark set to ${value}`;
      const kept = hashes === undefined ? '; applied hashes kept (unchanged records are skipped)' : hashes > 0 ? `; ${hashes} applied hashes cleared (every record read is sent)` : '';
      deps.print(what + kept);
    });
}
