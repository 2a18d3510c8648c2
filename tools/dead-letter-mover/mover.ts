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
}

/**
 * @throws UsageError when `--queue` is none of the queues Highwater uses. Their names are settings
 * (`QUEUE_*`), not configuration, so this needs neither `--config` nor the bus.
 */
function checkSourceQueue(queue: string, queues: QueueNames): void {
  if (placeOfQueue(queues, queue).role !== 'other') return;
  throw new UsageError(`--queue ${queue}: unknown queue (known: ${allQueueNames(queues).join(', ')})`);
}

async function loadJobs(configDir: string | undefined): Promise<Map<string, Job> | undefined> {
  if (configDir === undefined) return undefined;
  try {
    const config = await loadConfigFolder(configDir);
    return new Map(config.jobs.map((job) => [job.name, job]));
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
  const jobs = await loadJobs(options.configDir);
  const settings = settingsFor(options.connection, io.env, io.cwd);
  checkTargets(options, settings, jobs);
  const source: SourceLocation = options.deadLetter ? { queue: options.queue, subQueue: 'deadLetter' } : { queue: options.queue };
  const bus = await io.openBus(settings);
  try {
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
  }
}
