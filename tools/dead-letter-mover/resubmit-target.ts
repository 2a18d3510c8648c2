import type { QueueNames } from '../../src/config/settings';
import type { Job, Priority } from '../../src/model/job';
import { PRIORITIES } from '../../src/model/job';

/**
 * Where a resubmitted message goes: back to the work queue it came from. For a work queue that
 * is the queue itself; for a transitive queue the work queue of the same priority; for
 * `sbqignored` the work queue of the job's priority, which only the configuration knows
 * (`--config`). `--to` overrides all of these. A queue Highwater does not use is `other`: the
 * mover refuses it before it opens the bus.
 */
export type SourceRole =
  | { kind: 'work'; priority: Priority }
  | { kind: 'transitive'; priority: Priority }
  | { kind: 'ignored' }
  | { kind: 'other' };

export function sourceRole(queues: QueueNames, queue: string): SourceRole {
  for (const priority of PRIORITIES) {
    if (queues.work[priority] === queue) return { kind: 'work', priority };
    if (queues.transitive[priority] === queue) return { kind: 'transitive', priority };
  }
  return queue === queues.ignored ? { kind: 'ignored' } : { kind: 'other' };
}

/** The target of one message, or why there is none. */
export type TargetResult = { queue: string } | { problem: string };

export interface TargetResolver {
  /** Whether targets need the job of each message (and so `--config` or `--to`). */
  readonly needsJobs: boolean;
  resolve(jobName: string | undefined): TargetResult;
}

export interface TargetOptions {
  queues: QueueNames;
  source: string;
  /** `--to`: a work queue for every message. */
  to?: string;
  /** Jobs of `--config`, by name. */
  jobs?: ReadonlyMap<string, Job>;
  /** Shown in problems (the `--config` folder). */
  configDir?: string;
}

/** @throws Error naming the flag when `--to` is not a work queue. */
export function targetResolver(options: TargetOptions): TargetResolver {
  const { queues, to, jobs } = options;
  const workQueues = PRIORITIES.map((p) => queues.work[p]);
  if (to !== undefined) {
    if (!workQueues.includes(to)) throw new Error(`--to: "${to}" is not a work queue (expected one of ${workQueues.join(', ')})`);
    return { needsJobs: false, resolve: () => ({ queue: to }) };
  }
  const role = sourceRole(queues, options.source);
  if (role.kind === 'work' || role.kind === 'transitive') {
    const queue = queues.work[role.priority];
    return { needsJobs: false, resolve: () => ({ queue }) };
  }
  return {
    needsJobs: true,
    resolve(jobName) {
      if (jobs === undefined) return { problem: `the work queue of a message from "${options.source}" depends on its job's priority: pass --config DIR or --to QUEUE` };
      if (jobName === undefined) return { problem: 'the message names no job (no JobName property, no jobName in its body): pass --to QUEUE' };
      const job = jobs.get(jobName);
      if (job === undefined) return { problem: `job "${jobName}" is not in the configuration ${options.configDir ?? ''}`.trimEnd() };
      return { queue: queues.work[job.priority] };
    },
  };
}
