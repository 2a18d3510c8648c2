import type { JobRunResult } from '../detect/job-run';
import { nextOccurrence } from '../platform/schedule';
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
}

/**
 * The local host's stand-in for the GetChanges timer trigger: calls `tick` at each occurrence of
 * the schedule. Like the Functions timer (a singleton), a tick never overlaps the previous one: an
 * occurrence that passes while a tick still runs is skipped.
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
    const { clock, schedule, timeZone, log } = this.options;
    while (!this.stopped) {
      const now = clock.now();
      const next = nextOccurrence(schedule, now, timeZone);
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
}
