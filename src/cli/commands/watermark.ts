import type { Command } from 'commander';
import { WatermarkService } from '../../detect/watermark-service';
import type { WatermarkRecord } from '../../model/watermark-record';
import { tableKeyProblem } from '../../storage/table-key';
import { UsageError } from '../cli-error';
import { defaultStorageCommandDeps, withStorage, type StorageCommandDeps } from './config';

function checkJobName(job: string): void {
  const problem = tableKeyProblem(job);
  if (problem) throw new UsageError(`job name ${JSON.stringify(job)} ${problem}`);
}

function asJson(record: WatermarkRecord): Record<string, unknown> {
  return { jobName: record.jobName, watermark: record.watermark, lastCronRun: record.lastCronRun?.toISOString() ?? null, persisted: record.persisted };
}

/** A fixed-width table: job, watermark, last cron run (`-` for none). */
export function formatWatermarkTable(records: readonly WatermarkRecord[]): string[] {
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
    .option('--json', 'print JSON')
    .action(async (job: string, options: { json?: boolean }) => {
      checkJobName(job);
      const record = await open((service) => service.getWatermarkByJobName(job));
      if (options.json) return deps.print(JSON.stringify(asJson(record), null, 2));
      if (!record.persisted) return deps.print(`${job}: no watermark stored (the job is due and reads everything)`);
      deps.print(`${job}: watermark ${record.watermark ?? '(none: next run reads everything)'}, last cron run ${record.lastCronRun?.toISOString() ?? '(never: due)'}`);
    });

  watermark
    .command('reset')
    .description("clear a job's watermark (its next run reads everything) or set it with --to")
    .argument('<job>', 'job name')
    .option('--to <value>', 'set the watermark to this value instead of clearing it')
    .action(async (job: string, options: { to?: string }) => {
      checkJobName(job);
      if (options.to !== undefined && options.to.trim() === '') throw new UsageError('--to needs a value; omit it to clear the watermark');
      await open((service) => service.resetWatermark(job, options.to));
      deps.print(options.to === undefined ? `${job}: watermark cleared; the next run reads everything` : `${job}: watermark set to ${options.to}`);
    });
}
