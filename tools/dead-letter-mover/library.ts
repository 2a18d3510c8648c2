import type { BusMessage, MessageBus } from '../../src/bus/message-bus';
import type { Job } from '../../src/model/job';
import { applyPlan, type ApplyResult } from './apply';
import { planMessages } from './plan';
import { buildReport, type MoverReport } from './report';
import { sourcePath, type SourceLocation } from './resubmission';
import { targetResolver } from './resubmit-target';
import type { Rule } from './rules';
import { takeSnapshot } from './snapshot';
import type { QueueNames } from '../../src/platform/queue-topology';

/**
 * The mover as a library: one pass over one queue on a bus the caller has open, returning the
 * typed {@link MoverReport} (the object `--json` prints). No arguments, environment, files or
 * process: the caller has already parsed its rules and loaded its jobs. The command line, the
 * status page and the scheduled requeue are its callers (issue 22, item 3); the bus is the
 * caller's and stays open.
 */
export interface MoverPassOptions {
  /** An open bus; not closed by the pass. */
  bus: MessageBus;
  /** The queue names in use (to find the work queue of a resubmission). */
  queues: QueueNames;
  /** The queue (or its dead-letter subqueue) to read. */
  source: SourceLocation;
  /** Parsed rules (`loadRulesFile` / `parseRules`). */
  rules: readonly Rule[];
  /** The rules as named in the report (a file path). */
  rulesLabel: string;
  /** Where the bus is, as the report shows it (never a secret): `describeBus(settings)`. */
  busLabel: string;
  /** Act on the plan. Default false: a dry run, which only peeks. */
  apply?: boolean;
  /** Jobs by name: the work queue of an ignored message, and watermark types for de-duplication. */
  jobs?: ReadonlyMap<string, Job>;
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
  /** List every message in the report. Default false. */
  list?: boolean;
  clock?: () => Date;
  /** Stops an applying pass after the current batch. */
  signal?: AbortSignal;
  progress?: (settled: number, total: number) => void;
}

/** A message the broker will not hand out yet is left out rather than failed to be found. */
const receivable = (message: BusMessage, now: Date) => !(message.scheduledEnqueueTime && message.scheduledEnqueueTime > now);

/**
 * Snapshot, plan and (with `apply`) act, as `dead-letter-mover` does.
 * @throws Error when `to` is not a work queue, or the source is the ignored queue and no `jobs`
 *   or `to` say where its messages go; bus errors (e.g. `QueueNotFound`) as the bus throws them.
 */
export async function runMoverPass(options: MoverPassOptions): Promise<MoverReport> {
  const clock = options.clock ?? (() => new Date());
  const targets = targetResolver({ queues: options.queues, source: options.source.queue, to: options.to, jobs: options.jobs });
  if (targets.needsJobs && options.jobs === undefined) {
    throw new Error(`${options.source.queue}: the work queue to resubmit to depends on each message's job priority: give the jobs or a work queue to resubmit to`);
  }
  const start = clock();
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
  });
}
