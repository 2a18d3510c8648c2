import { ConfigError } from '../platform/errors';
import type { Job } from '../model/job';
import type { WatermarkStore } from '../model/watermark-record';
import { isDue, nextOccurrence, scheduleProblem, timeZoneProblem } from '../platform/schedule';

export interface JobServiceOptions {
  /** The configured jobs; called on every use, so a reloaded configuration is seen. */
  jobs: () => readonly Job[];
  /** Where `LastCronRun` is read from (one bulk `getAllWatermarks()` per call). */
  watermarks: WatermarkStore;
  /**
   * IANA time zone the schedules are read in (Functions' `WEBSITE_TIME_ZONE`), e.g.
   * `Europe/Berlin`; `UTC` for none. No default: the caller passes the setting.
   */
  timeZone: string;
}

/** Decides which jobs are due; pure apart from the one watermark read. */
export class JobService {
  private readonly timeZone: string;

  /** @throws ConfigError when `timeZone` is not a known IANA zone. */
  constructor(private readonly options: JobServiceOptions) {
    const problem = timeZoneProblem(options.timeZone);
    if (problem) throw new ConfigError(`timeZone: ${problem}`);
    this.timeZone = options.timeZone;
  }

  /**
   * Enabled jobs that are due at `now`: never run (`LastCronRun` null, or no watermark row), or a
   * schedule occurrence lies in (`LastCronRun`, `now`]. Ordered by `order`, then name (ordinal).
   * @throws ConfigError naming the job when an enabled job's schedule is invalid.
   */
  async getJobsToRun(now: Date): Promise<Job[]> {
    const candidates = this.options.jobs().filter((job) => job.enabled);
    if (candidates.length === 0) return [];
    const records = await this.options.watermarks.getAllWatermarks();
    const due = candidates.filter((job) => {
      this.checkSchedule(job);
      return isDue(job.schedule, records.get(job.name)?.lastCronRun ?? null, now, this.timeZone);
    });
    return due.sort(byOrderThenName);
  }

  /**
   * The first schedule occurrence strictly after `now`, or null for a disabled job (never run by
   * the timer). Ignores `LastCronRun`: a job that is due now runs on the current tick.
   * @throws ConfigError naming the job when its schedule is invalid.
   */
  nextRun(job: Job, now: Date): Date | null {
    if (!job.enabled) return null;
    this.checkSchedule(job);
    return nextOccurrence(job.schedule, now, this.timeZone);
  }

  private checkSchedule(job: Job): void {
    const problem = scheduleProblem(job.schedule);
    if (problem) throw new ConfigError(`job "${job.name}": schedule: ${problem}`);
  }
}

function byOrderThenName(a: Job, b: Job): number {
  if (a.order !== b.order) return a.order - b.order;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
