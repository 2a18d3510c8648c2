import { describeBus } from '../bus/create-bus';
import type { MessageBus } from '../bus/message-bus';
import type { LoadedRequeueConfig } from '../config/requeue-config';
import type { Settings } from '../platform/settings';
import { nextOccurrence } from '../platform/schedule';
import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import { type Job } from '../model/job';
import type { Logger } from '../telemetry/logger';
import type { MoverReport } from '../mover/report';
import { PRIORITIES } from '../platform/queue-topology';

/**
 * The scheduled requeue of parked messages (docs/long-runs.md): on the schedule of the config
 * folder's requeue file, the dead-letter mover's rules run with `--apply` over the three transitive
 * queues. Each resubmission raises the message's `RequeueCount`; a message the schedule has sent
 * back `maxRequeues` times is left parked for a person (decision `capped`). Same code for the local
 * host (a loop on the schedule) and the Functions app (the RequeueParked timer).
 */

export interface RequeueDependencies {
  bus: MessageBus;
  settings: Pick<Settings, 'queues' | 'timeZone' | 'dataDir' | 'serviceBusConnectionString' | 'serviceBusNamespace'>;
  /** The configured jobs (watermark types for de-duplication). */
  jobs: () => readonly Job[];
  clock: Clock;
  log: Logger;
}

/** What one run did, per parked queue. */
export interface RequeueRun {
  at: Date;
  /** One report per transitive queue read (the mover's typed report). */
  reports: MoverReport[];
  resubmitted: number;
  /** Left for a person: requeued `maxRequeues` times already. */
  capped: number;
  failed: number;
  /** Queues that could not be read, with why. */
  errors: string[];
}

const cappedIn = (report: MoverReport) => report.groups.filter((g) => g.decision === 'capped').reduce((n, g) => n + g.count, 0);

/** One run over the transitive queues. Never throws for one queue's failure: the others still run. */
export async function requeueParked(deps: RequeueDependencies, config: LoadedRequeueConfig): Promise<RequeueRun> {
  // Loaded when a run happens: a host with the requeue off never loads the mover.
  const [{ runMoverPass }, { readRulesFile }, { defaultRulesFile }] = await Promise.all([
    import('../mover/library'),
    import('../config/requeue-rules-schema'),
    import('../mover/default-rules'),
  ]);
  const rulesFile = config.rulesFile ?? defaultRulesFile();
  const rulesLabel = config.rules ?? 'the dead-letter mover’s default-rules.yaml';
  const rules = await readRulesFile(rulesFile, rulesLabel);
  const jobs = new Map(deps.jobs().map((job) => [job.name, job]));
  const run: RequeueRun = { at: deps.clock.now(), reports: [], resubmitted: 0, capped: 0, failed: 0, errors: [] };
  for (const priority of PRIORITIES) {
    const queue = deps.settings.queues.transitive[priority];
    try {
      const report = await runMoverPass({
        bus: deps.bus,
        queues: deps.settings.queues,
        source: { queue },
        rules,
        rulesLabel,
        busLabel: describeBus(deps.settings),
        apply: true,
        jobs,
        max: config.maxMessages,
        maxRequeues: config.maxRequeues,
        countRequeues: true,
        clock: deps.clock,
      });
      run.reports.push(report);
      const resubmitted = report.results?.resubmitted ?? 0;
      const capped = cappedIn(report);
      const failed = report.results?.failed ?? 0;
      run.resubmitted += resubmitted;
      run.capped += capped;
      run.failed += failed;
      if (resubmitted + capped + failed > 0) {
        deps.log.info(`requeue ${queue}: ${resubmitted} resubmitted, ${capped} left for a person (requeued ${config.maxRequeues} times), ${failed} failed`);
      }
    } catch (err) {
      run.errors.push(`${queue}: ${errorMessage(err)}`);
      deps.log.warn(`requeue ${queue} failed: ${errorMessage(err)}`);
    }
  }
  return run;
}

/**
 * Whether the schedule has an occurrence in (`now - windowMs`, `now`]: the Functions timer looks
 * every `windowMs` (a minute) and runs the requeue when an occurrence fell since its last look.
 */
export function requeueDue(schedule: string, now: Date, windowMs: number, timeZone = 'UTC'): boolean {
  return nextOccurrence(schedule, new Date(now.getTime() - windowMs), timeZone).getTime() <= now.getTime();
}

/**
 * The local host's requeue loop: a run at each occurrence of the schedule, never two at once (an
 * occurrence that passes during a run is skipped). Does nothing unless `config.enabled`.
 * @returns stop: ends the loop and waits for a running pass.
 */
export function startScheduledRequeue(deps: RequeueDependencies, config: LoadedRequeueConfig | undefined, onRun?: (run: RequeueRun) => void): () => Promise<void> {
  if (!config?.enabled) return async () => {};
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const now = deps.clock.now();
      const next = nextOccurrence(config.schedule, now, deps.settings.timeZone);
      try {
        await deps.clock.sleep(Math.max(0, next.getTime() - now.getTime()), abort.signal);
      } catch {
        return; // stopped
      }
      try {
        onRun?.(await requeueParked(deps, config));
      } catch (err) {
        deps.log.error(`requeue failed: ${errorMessage(err)}`);
      }
    }
  })();
  deps.log.info(`requeue of parked messages on "${config.schedule}" (${config.file}), at most ${config.maxRequeues} times per message`);
  return async () => {
    abort.abort(new Error('requeue stopped'));
    await loop;
  };
}
