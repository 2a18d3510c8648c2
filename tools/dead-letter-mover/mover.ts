import { UsageError } from '../../src/cli/cli-error';
import { describeBus } from '../../src/bus/create-bus';
import { isBusError, type BusMessage, type MessageBus } from '../../src/bus/message-bus';
import { loadConfigFolder } from '../../src/config/load-config';
import { readSettings, type Settings } from '../../src/platform/settings';
import { errorMessage } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';
import { applyPlan, type ApplyResult } from './apply';
import { settingsFor } from './connection';
import { messageFacts } from './message-facts';
import { OUTDATED_REASON } from './normalize-error';
import type { MoverOptions } from './options';
import { planMessages } from './plan';
import { buildReport, type MoverReport } from './report';
import { sourcePath, type SourceLocation } from './resubmission';
import { targetResolver, type TargetResolver } from './resubmit-target';
import { loadRulesFile } from './rules-file';
import { takeSnapshot } from './snapshot';
import { allQueueNames, placeOfQueue, type QueueNames } from '../../src/platform/queue-topology';

/** What a run needs from its surroundings; `runMover` fills in the process's. */
export interface MoverIo {
  /** Writes a line of the report (stdout). */
  out(line: string): void;
  /** Writes a line of progress or error (stderr). */
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: () => Date;
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

function resolverFor(options: MoverOptions, settings: Settings, jobs: Map<string, Job> | undefined): TargetResolver {
  let resolver: TargetResolver;
  try {
    resolver = targetResolver({ queues: settings.queues, source: options.queue, to: options.to, jobs, configDir: options.configDir });
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
  if (resolver.needsJobs && jobs === undefined) {
    throw new UsageError(
      `--queue ${options.queue}: the work queue to resubmit to depends on each message's job priority; pass --config DIR (the configuration folder) or --to QUEUE`,
    );
  }
  return resolver;
}

function scopeFilter(options: MoverOptions, now: Date): (message: BusMessage) => boolean {
  return (message) => {
    // A scheduled message is not receivable yet: leave it out rather than fail to find it.
    if (message.scheduledEnqueueTime && message.scheduledEnqueueTime > now) return false;
    if (options.job !== undefined && messageFacts(message).jobName !== options.job) return false;
    if (options.olderThanMs !== undefined && now.getTime() - message.enqueuedTime.getTime() < options.olderThanMs) return false;
    return true;
  };
}

/** One run: snapshot, plan, and with `--apply` the actions. @throws UsageError for bad arguments. */
export async function moveMessages(options: MoverOptions, io: MoverIo): Promise<MoverReport> {
  // First: a mistyped queue is the likeliest bad argument, and the later checks (a missing
  // --config, a missing bus) would hide it behind advice that cannot help.
  checkSourceQueue(options.queue, readSettings(io.env, io.cwd).queues);
  const rules = await loadRulesFile(options.rulesFile, options.rulesLabel);
  const jobs = await loadJobs(options.configDir);
  const settings = settingsFor(options.connection, io.env, io.cwd);
  const targets = resolverFor(options, settings, jobs);
  const source: SourceLocation = options.deadLetter ? { queue: options.queue, subQueue: 'deadLetter' } : { queue: options.queue };
  const bus = await io.openBus(settings);
  try {
    const start = io.clock();
    const snapshot = await takeSnapshot(bus, { ...source, inScope: scopeFilter(options, start), max: options.max }).catch((err: unknown) => {
      if (isBusError(err, 'QueueNotFound')) throw new UsageError(`--queue ${options.queue}: ${errorMessage(err)}`);
      throw err;
    });
    const plan = planMessages(snapshot.inScope, {
      rules,
      now: start,
      targets,
      watermarkTypeOf: (jobName) => jobs?.get(jobName)?.watermark.type,
    });
    let applied: ApplyResult | undefined;
    if (options.apply) {
      applied = await applyPlan({
        bus,
        source,
        plan,
        snapshot,
        rules,
        clock: io.clock,
        signal: io.signal,
        progress: (settled, total) => io.err(`progress: ${settled} of ${total} settled`),
      });
    }
    return buildReport({
      mode: options.apply ? 'apply' : 'dry-run',
      source: sourcePath(source),
      bus: describeBus(settings),
      rules: { file: options.rulesLabel, count: rules.length },
      snapshot,
      plan,
      applied,
      list: options.list,
      // The ignored queue's messages carry no error; say why they are there, as the status page does.
      ...(!options.deadLetter && placeOfQueue(settings.queues, options.queue).role === 'ignored' ? { noErrorText: OUTDATED_REASON } : {}),
    });
  } finally {
    await bus.close();
  }
}
