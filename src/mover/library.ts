import type { BusMessage, MessageBus } from '../bus/message-bus';
import type { Rule } from '../config/requeue-rules';
import type { Job } from '../model/job';
import { systemClock, type Clock } from '../platform/clock';
import { placeOfQueue, type QueueNames } from '../platform/queue-topology';
import { applyPlan, type ApplyResult } from './apply';
import { OUTDATED_REASON } from './normalize-error';
import { markNewerApplied, planMessages } from './plan';
import { findNewerApplied } from './applied-check';
import type { AppliedVersionReader } from '../storage/applied-version-store';
import { buildReport, type MoverReport } from './report';
import { sourcePath, type SourceLocation } from './resubmission';
import { targetResolver } from './resubmit-target';
import { takeSnapshot } from './snapshot';

/**
 * The mover as a library: one pass over one queue on a bus the caller has open, returning the
 * typed {@link MoverReport} (the object `--json` prints). No arguments, environment, files or
 * process: the caller has already parsed its rules and loaded its jobs. The command line, the
 * status page and the scheduled requeue are its callers; the bus is the
 * caller's and stays open.
 */
export interface MoverPassOptions {
  /** An open bus; not closed by the pass. */
  bus: MessageBus;
  /** The queue names in use (to find the work queue of a resubmission). */
  queues: QueueNames;
  /** The queue (or its dead-letter subqueue) to read. */
  source: SourceLocation;
  /** Parsed rules (`readRulesFile` / `parseRulesText` of src/config/requeue-rules-schema). */
  rules: readonly Rule[];
  /** The rules as named in the report (a file path). */
  rulesLabel: string;
  /** Where the bus is, as the report shows it (never a secret): `describeBus(settings)`. */
  busLabel: string;
  /** Act on the plan. Default false: a dry run, which only peeks. */
  apply?: boolean;
  /** Jobs by name: the work queue of an ignored message, and watermark types for de-duplication. */
  jobs?: ReadonlyMap<string, Job>;
  /** Where `jobs` were read from, named in problems (the `--config` folder). Default: not named. */
  jobsSource?: string;
  /** Resubmit every message to this work queue instead of the derived one. */
  to?: string;
  /** Which messages the pass considers; the others are left alone. Default all. */
  inScope?: (message: BusMessage, now: Date) => boolean;
  /** Most messages considered (oldest first). Default all. */
  max?: number;
  /** Leave messages whose `RequeueCount` reached this (decision `capped`). Default no cap. */
  maxRequeues?: number;
  /** Raise `RequeueCount` on every resubmission (the scheduled requeue). Default false. */
  countRequeues?: boolean;
  /**
   * The store of applied changes the processor records: a Resubmit whose record has a newer
   * applied change is left in place (decision `newerApplied`). Default none: not checked (the
   * processor still ignores such a message when it comes back).
   */
  appliedVersions?: AppliedVersionReader;
  /** Resubmit such messages anyway, marked to be applied over the newer change (decision `forced`). Default false. */
  includeSuperseded?: boolean;
  /** List every message in the report. Default false. */
  list?: boolean;
  /** The time of the pass (message ages, lock renewals, `ResubmittedAt`). Default the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Stops an applying pass after the current batch. */
  signal?: AbortSignal;
  /** Called after each batch of an applying pass: messages settled so far, and the number to settle. Default none. */
  progress?: (settled: number, total: number) => void;
}

/** A message the broker will not hand out yet is left out rather than failed to be found. */
const receivable = (message: BusMessage, now: Date) => !(message.scheduledEnqueueTime && message.scheduledEnqueueTime > now);

/**
 * Snapshot, plan and (with `apply`) act: what `dead-letter-mover` runs.
 * @throws Error when `to` is not a work queue, or the source is the ignored queue and no `jobs`
 *   or `to` say where its messages go; bus errors (e.g. `QueueNotFound`) as the bus throws them.
 */
export async function runMoverPass(options: MoverPassOptions): Promise<MoverReport> {
  const clock = options.clock ?? systemClock;
  const targets = targetResolver({ queues: options.queues, source: options.source.queue, to: options.to, jobs: options.jobs, configDir: options.jobsSource });
  if (targets.needsJobs && options.jobs === undefined) {
    throw new Error(`${options.source.queue}: the work queue to resubmit to depends on each message's job priority: give the jobs or a work queue to resubmit to`);
  }
  const start = clock.now();
  const inScope = options.inScope;
  const snapshot = await takeSnapshot(options.bus, {
    ...options.source,
    inScope: (message) => receivable(message, start) && (inScope === undefined || inScope(message, start)),
    max: options.max,
  });
  const plan = planMessages(snapshot.inScope, {
    rules: options.rules,
    now: start,
    targets,
    watermarkTypeOf: (jobName) => options.jobs?.get(jobName)?.watermark.type,
    maxRequeues: options.maxRequeues,
  });
  if (options.appliedVersions) {
    markNewerApplied(plan, await findNewerApplied(plan, options.appliedVersions, options.jobs), options.includeSuperseded === true);
  }
  let applied: ApplyResult | undefined;
  if (options.apply) {
    applied = await applyPlan({
      bus: options.bus,
      source: options.source,
      plan,
      snapshot,
      rules: options.rules,
      clock,
      signal: options.signal,
      progress: options.progress,
      countRequeues: options.countRequeues,
    });
  }
  return buildReport({
    mode: options.apply ? 'apply' : 'dry-run',
    source: sourcePath(options.source),
    bus: options.busLabel,
    rules: { file: options.rulesLabel, count: options.rules.length },
    snapshot,
    plan,
    applied,
    list: options.list,
    // The ignored queue's messages carry no error; say why they are there, as the status page does.
    ...(options.source.subQueue === undefined && placeOfQueue(options.queues, options.source.queue).role === 'ignored' ? { noErrorText: OUTDATED_REASON } : {}),
  });
}
