import { describeBus } from '../../bus/create-bus';
import type { MessageBus } from '../../bus/message-bus';
import { readRulesFile } from '../../config/requeue-rules-schema';
import type { HighwaterConfig } from '../../model/config';
import { defaultRulesFile, rulesFileLabel } from '../../mover/default-rules';
import { runMoverPass } from '../../mover/library';
import { exitCodeOf } from '../../mover/report';
import { formatReport } from '../../mover/report-text';
import type { Settings } from '../../platform/settings';
import { errorMessage } from '../../platform/errors';
import { allQueueNames } from '../../platform/queue-topology';
import { terminalText } from '../../platform/terminal-text';

/** One place the mover reads from. */
export interface MoverSource {
  queue: string;
  deadLetter: boolean;
}

/**
 * The mover's command line for a dry run of `source` against this host's bus (the page's "from a
 * terminal" hint; the page's own report runs the mover's library, not this command): `--data-dir` for the
 * local bus (Azure connections come from the environment, never from arguments), `--config` so
 * that parked and ignored messages resolve their work queue.
 */
export function moverArguments(source: MoverSource, settings: Pick<Settings, 'dataDir' | 'serviceBusConnectionString' | 'serviceBusNamespace'>, configDir?: string): string[] {
  const args = ['--queue', source.queue];
  if (source.deadLetter) args.push('--dead-letter');
  if (!settings.serviceBusConnectionString && !settings.serviceBusNamespace) args.push('--data-dir', settings.dataDir);
  if (configDir) args.push('--config', configDir);
  return args;
}

/** `npx dead-letter-mover …` as a shell line (arguments with spaces or quotes are single-quoted). */
export function moverCommandLine(args: readonly string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['npx', 'dead-letter-mover', ...args].map(quote).join(' ');
}

export interface MoverReportResult {
  /** As the mover's exit code: 0 ok, 1 partial failure (or the pass failed). */
  exitCode: number;
  /** The report as the mover prints it, or the error. */
  lines: string[];
}

/** What the dry run needs of the host: its settings, its open bus and its jobs. */
export interface MoverReportRuntime {
  settings: Settings;
  bus: MessageBus;
  init: { ensureInitialized(): Promise<Pick<HighwaterConfig, 'jobs'>> };
}

/**
 * The dead-letter mover's dry run of `source` (`runMoverPass` without `apply`: it only peeks) on
 * the host's open bus, which is lent, not closed, with the mover's default rules and the host's
 * jobs, rendered as the mover's text report (one renderer: the command line prints the same).
 * @param configDir the host's configuration folder, named in problems of the report.
 * @throws Error when `source.queue` is not a queue of the settings.
 */
export async function moverDryRunReport(runtime: MoverReportRuntime, source: MoverSource, configDir?: string): Promise<MoverReportResult> {
  const { settings, bus } = runtime;
  if (!allQueueNames(settings.queues).includes(source.queue)) throw new Error(`queue: unknown queue "${source.queue}"`);
  try {
    const rulesFile = defaultRulesFile();
    const rulesLabel = rulesFileLabel(rulesFile, process.cwd());
    const { jobs } = await runtime.init.ensureInitialized();
    const report = await runMoverPass({
      bus,
      queues: settings.queues,
      source: source.deadLetter ? { queue: source.queue, subQueue: 'deadLetter' } : { queue: source.queue },
      rules: await readRulesFile(rulesFile, rulesLabel),
      rulesLabel,
      busLabel: describeBus(settings),
      jobs: new Map(jobs.map((job) => [job.name, job])),
      jobsSource: configDir,
    });
    // Made terminal-safe as the command line's lines are: error texts of parked messages can hold anything.
    return { exitCode: exitCodeOf(report), lines: formatReport(report).map(terminalText) };
  } catch (err) {
    return { exitCode: 1, lines: [terminalText(`error: ${errorMessage(err)}`)] };
  }
}
