import type { JobRunResult } from '../detect/job-run';
import { nextOccurrence, scheduleProblem } from '../platform/schedule';
import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { Logger } from '../telemetry/logger';

export interface DetectionSchedulerOptions {
  /** NCRONTAB of the GetChanges timer. */
  schedule: string;
  timeZone: string;
  clock: Clock;
  log: Logger;
  /** The GetChanges handler: runs the due jobs. */
  tick(): Promise<JobRunResult[]>;
  /**
   * The enabled jobs' schedules, read before each wait. The scheduler also wakes at each of their
   * occurrences, so a job finer than `schedule` (every 2 seconds beside the default 10)
   * runs on its own schedule, as the status page's "next run" says. A schedule that does not
   * parse is left out here (GetChanges reports it). Default: none (only `schedule`).
   */
  jobSchedules?: () => readonly string[];
}

/**
 * The local host's stand-in for the GetChanges timer trigger: calls `tick` at each occurrence of
 * the schedule, and at each occurrence of a job's schedule between them. Like the Functions timer
 * (a singleton), a tick never overlaps the previous one: an occurrence that passes while a tick
 * still runs is skipped (the job is due at the next tick all the same).
 */
export class DetectionScheduler {
  private stopped = true;
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(private readonly options: DetectionSchedulerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Stops scheduling and waits for a running tick to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort(new Error('scheduler stopped'));
    await this.loop;
  }

  private async run(): Promise<void> {
    const { clock, log } = this.options;
    while (!this.stopped) {
      const now = clock.now();
      const next = this.nextWake(now);
      try {
        await clock.sleep(Math.max(0, next.getTime() - now.getTime()), this.abort.signal);
      } catch {
        return; // stopped
      }
      try {
        await this.options.tick();
      } catch (err) {
        log.error(`GetChanges failed: ${errorMessage(err)}`);
      }
    }
  }

  /** The earliest occurrence after `now` of the GetChanges schedule or of any job's schedule. */
  private nextWake(now: Date): Date {
    const { schedule, timeZone, jobSchedules } = this.options;
    let next = nextOccurrence(schedule, now, timeZone);
    let schedules: readonly string[] = [];
    try {
      schedules = jobSchedules?.() ?? [];
    } catch {
      // Configuration not loaded yet: GetChanges loads it (and reports why it cannot).
    }
    for (const jobSchedule of new Set(schedules)) {
      if (scheduleProblem(jobSchedule)) continue;
      const due = nextOccurrence(jobSchedule, now, timeZone);
      if (due.getTime() < next.getTime()) next = due;
    }
    return next;
  }
}
