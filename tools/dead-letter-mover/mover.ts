import { UsageError } from '../../src/cli/cli-error';
import { describeBus } from '../../src/bus/create-bus';
import { isBusError, type BusMessage, type MessageBus } from '../../src/bus/message-bus';
import { loadConfigFolder } from '../../src/config/load-config';
import type { Clock } from '../../src/platform/clock';
import { readSettings, type Settings } from '../../src/platform/settings';
import { errorMessage } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';
import { runMoverPass } from '../../src/mover/library';
import { messageFacts } from '../../src/mover/message-facts';
import type { MoverReport } from '../../src/mover/report';
import type { SourceLocation } from '../../src/mover/resubmission';
import { targetResolver } from '../../src/mover/resubmit-target';
import { allQueueNames, placeOfQueue, type QueueNames } from '../../src/platform/queue-topology';
import { settingsFor } from './connection';
import { openAppliedTables } from './applied-tables';
import { APPLIED_VERSIONS_TABLE, AppliedVersionStore } from '../../src/storage/applied-version-store';
import { relatedJobsOf } from '../../src/process/related-jobs';
import type { Mapping } from '../../src/model/mapping';
import type { TableStorage } from '../../src/storage/table-store';
import type { MoverOptions } from './options';
import { loadRulesFile } from './rules-file';

/** What a run needs from its surroundings; `runMover` fills in the process's. */
export interface MoverIo {
  /** Writes a line of the report (stdout). */
  out(line: string): void;
  /** Writes a line of progress or error (stderr). */
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The time of the run (default the system clock). */
  clock: Pick<Clock, 'now'>;
  /** Opens the bus the settings select (default: `createBus` of src/bus/create-bus). */
  openBus(settings: Settings): Promise<MessageBus>;
  /** Aborting it stops an `--apply` run after the current batch (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * Opens the table storage holding the applied changes, or undefined when there is none
   * (default: `openAppliedTables`).
   */
  openTables?(settings: Settings): Promise<TableStorage | undefined>;
}

/**
 * @throws UsageError when `--queue` is none of the queues Highwater uses. Their names are settings
 * (`QUEUE_*`), not configuration, so this needs neither `--config` nor the bus.
 */
function checkSourceQueue(queue: string, queues: QueueNames): void {
  if (placeOfQueue(queues, queue).role !== 'other') return;
  throw new UsageError(`--queue ${queue}: unknown queue (known: ${allQueueNames(queues).join(', ')})`);
}

async function loadJobs(configDir: string | undefined): Promise<{ jobs: Map<string, Job>; mappings: Map<string, Mapping> } | undefined> {
  if (configDir === undefined) return undefined;
  try {
    const config = await loadConfigFolder(configDir);
    return { jobs: new Map(config.jobs.map((job) => [job.name, job])), mappings: new Map(config.mappings.map((m) => [m.name, m])) };
  } catch (err) {
    throw new UsageError(`--config ${configDir}: ${errorMessage(err)}`);
  }
}

/**
 * The checks of `runMoverPass` on where resubmissions go, made before the bus opens and worded
 * for the command line. @throws UsageError for a `--to` that is no work queue, or a source whose
 * messages need their jobs' priorities without `--config` or `--to`.
 */
function checkTargets(options: MoverOptions, settings: Settings, jobs: Map<string, Job> | undefined): void {
  let needsJobs: boolean;
  try {
    ({ needsJobs } = targetResolver({ queues: settings.queues, source: options.queue, to: options.to, jobs }));
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
  if (needsJobs && jobs === undefined) {
    throw new UsageError(
      `--queue ${options.queue}: the work queue to resubmit to depends on each message's job priority; pass --config DIR (the configuration folder) or --to QUEUE`,
    );
  }
}

/** `--job` and `--older-than` (the pass itself leaves out messages not receivable yet). */
function scopeFilter(options: MoverOptions): (message: BusMessage, now: Date) => boolean {
  return (message, now) => {
    if (options.job !== undefined && messageFacts(message).jobName !== options.job) return false;
    if (options.olderThanMs !== undefined && now.getTime() - message.enqueuedTime.getTime() < options.olderThanMs) return false;
    return true;
  };
}

/** One run: the checks, then `runMoverPass` on the bus the settings select. @throws UsageError for bad arguments. */
export async function moveMessages(options: MoverOptions, io: MoverIo): Promise<MoverReport> {
  // First: a mistyped queue is the likeliest bad argument, and the later checks (a missing
  // --config, a missing bus) would hide it behind advice that cannot help.
  checkSourceQueue(options.queue, readSettings(io.env, io.cwd).queues);
  const rules = await loadRulesFile(options.rulesFile, options.rulesLabel);
  const config = await loadJobs(options.configDir);
  const jobs = config?.jobs;
  const settings = settingsFor(options.connection, io.env, io.cwd);
  checkTargets(options, settings, jobs);
  const source: SourceLocation = options.deadLetter ? { queue: options.queue, subQueue: 'deadLetter' } : { queue: options.queue };
  const tables = await openTables(options, settings, io);
  let bus: MessageBus;
  try {
    bus = await io.openBus(settings);
  } catch (err) {
    await tables?.close();
    throw err;
  }
  try {
    const appliedVersions = tables
      ? new AppliedVersionStore(await tables.table(APPLIED_VERSIONS_TABLE), undefined, {
          relatedJobs: config ? relatedJobsOf([...config.jobs.values()], (name) => config.mappings.get(name)) : undefined,
        })
      : undefined;
    return await runMoverPass({
      bus,
      queues: settings.queues,
      source,
      rules,
      rulesLabel: options.rulesLabel,
      busLabel: describeBus(settings),
      apply: options.apply,
      jobs,
      jobsSource: options.configDir,
      to: options.to,
      inScope: scopeFilter(options),
      max: options.max,
      list: options.list,
      appliedVersions,
      includeSuperseded: options.includeSuperseded,
      clock: io.clock,
      signal: io.signal,
      progress: (settled, total) => io.err(`progress: ${settled} of ${total} settled`),
    });
  } catch (err) {
    // The source queue is read first (the snapshot): a queue the bus does not have is a bad argument.
    if (isBusError(err, 'QueueNotFound')) throw new UsageError(`--queue ${options.queue}: ${errorMessage(err)}`);
    throw err;
  } finally {
    await bus.close();
    await tables?.close();
  }
}

/**
 * The tables of applied changes, to leave a Resubmit whose record has a newer applied change in
 * place. @throws Error when they exist but cannot be opened, unless `--include-superseded`
 * (which resubmits such messages anyway): then a warning, and no check.
 */
async function openTables(options: MoverOptions, settings: Settings, io: MoverIo): Promise<TableStorage | undefined> {
  try {
    return await (io.openTables ?? openAppliedTables)(settings);
  } catch (err) {
    const why = `cannot read the changes the processor applied: ${errorMessage(err)}`;
    if (!options.includeSuperseded) throw new Error(`${why}; nothing was done (--include-superseded resubmits without this check)`, { cause: err });
    io.err(`warning: ${why}; not checked whether a newer change of each record was applied (--include-superseded)`);
    return undefined;
  }
}
