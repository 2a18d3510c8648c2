import type { Job } from '../model/job';
import { type QueueNames, PRIORITIES, placeOfQueue } from '../platform/queue-topology';

/*
 * Where a resubmitted message goes: back to the work queue it came from. For a work queue that
 * is the queue itself; for a transitive queue the work queue of the same priority; for
 * `sbqignored` the work queue of the job's priority, which only the configuration knows
 * (`--config`). `--to` overrides all of these. A queue Highwater does not use (`other` in the
 * topology) is refused before the bus opens.
 */

/** The target of one message, or why there is none. */
type TargetResult = { queue: string } | { problem: string };

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
  const place = placeOfQueue(queues, options.source);
  if (place.role === 'work' || place.role === 'transitive') {
    const queue = queues.work[place.priority];
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
