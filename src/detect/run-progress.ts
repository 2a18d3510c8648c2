import { createHash } from 'node:crypto';
import type { SourcePage } from '../../connectors/base/source-connector';
import { errorMessage } from '../platform/errors';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { WatermarkValue } from '../model/watermark-value';
import type { BatchingSender } from './detection-dependencies';
import type { JobRunResult } from './job-run';
import { retryDelayMs, type RunSettings } from './run-settings';
import type { ResumeCursor, RunState, RunStateStore } from './run-state';
import type { Clock } from '../platform/clock';

/**
 * What a resume cursor belongs to: a cursor saved under another source, entity, key, watermark
 * field or type, or another filter, is not a position in this job's read and is ignored.
 */
function readFingerprint(job: Job, mapping: Mapping): string {
  const parts = [job.source, mapping.source.entity, mapping.source.key.join(','), job.watermark.field, job.watermark.type, JSON.stringify(job.filter ?? [])];
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22);
}

/**
 * The bookkeeping of one scheduled or manual run in its job's watermark entity: the running
 * marker at the start (a run that never ends leaves it, and the next run records it as cut off),
 * resume cursors while it reads, the failure count and `retryAt` when it fails. A finished run
 * clears all of it by writing the watermark (the entity is replaced).
 */
export class RunProgress {
  private lastSavedAt: number;
  private rowsBefore: number;

  private constructor(
    private readonly store: RunStateStore,
    private readonly job: Job,
    private readonly settings: RunSettings,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly fingerprint: string,
    /** The cursor this run started from, null for a run from the watermark. */
    readonly resume: ResumeCursor | null,
    private readonly previous: RunState,
    private readonly running: { startedAt: Date; trigger: string },
    private readonly warn: (message: string) => void,
  ) {
    this.lastSavedAt = clock.now().getTime();
    this.rowsBefore = resume?.rows ?? 0;
  }

  /**
   * Reads the job's run state and writes this run's running marker.
   * @returns the progress, and the record of an earlier run that began and never ended (killed,
   *   timed out, or still running on another instance), to be written to the run log.
   */
  static async begin(
    store: RunStateStore, job: Job, mapping: Mapping, trigger: JobRunResult['trigger'], settings: RunSettings, clock: Pick<Clock, 'now'>,
    warn: (message: string) => void,
  ): Promise<{ progress: RunProgress; cutOff?: JobRunResult }> {
    const state = await store.getRunState(job.name);
    const fingerprint = readFingerprint(job, mapping);
    const resume = state.resume && state.resume.fingerprint === fingerprint ? state.resume : null;
    const startedAt = clock.now();
    await store.updateRunState(job.name, { resume, running: { startedAt, trigger, heartbeatAt: startedAt } });
    const progress = new RunProgress(store, job, settings, clock, fingerprint, resume, state, { startedAt, trigger }, warn);
    return { progress, ...(state.running ? { cutOff: cutOffRun(job.name, state.running) } : {}) };
  }

  /** Failures before this run (0 after a success). */
  get failuresBefore(): number {
    return this.previous.failures;
  }

  /**
   * After a page whose messages were all handed to `sender`: when `force`, or when the last save
   * is at least the checkpoint interval ago, flushes `sender` (so everything up to the page end
   * is on the bus) and saves the position after the page. At most one write per flush.
   * @returns whether a cursor was saved.
   */
  async afterPage(page: SourcePage, rowsRead: number, watermark: WatermarkValue, sender: BatchingSender, force = false): Promise<boolean> {
    const at = this.clock.now();
    if (!page.cursor || (!force && at.getTime() - this.lastSavedAt < this.settings.checkpointIntervalMs)) return false;
    await sender.flushBatch();
    const last = page.messages[page.messages.length - 1];
    const resume: ResumeCursor = {
      changeTracker: watermark.value,
      sourceKey: last?.sourceKey ?? null,
      position: page.cursor,
      fingerprint: this.fingerprint,
      loadStartedAt: this.resume?.loadStartedAt ?? this.running.startedAt.toISOString(),
      savedAt: at.toISOString(),
      rows: this.rowsBefore + rowsRead,
    };
    this.lastSavedAt = at.getTime();
    try {
      await this.store.updateRunState(this.job.name, { resume, running: { ...this.running, heartbeatAt: at } });
    } catch (err) {
      // The messages are on the bus; without this cursor a later run repeats them, never skips them.
      this.warn(`job "${this.job.name}": resume cursor not saved: ${errorMessage(err)}`);
      return false;
    }
    return true;
  }

  /**
   * A run stopped by its time budget: the cursor is saved by {@link afterPage}; the marker goes,
   * and so does a failure backoff (the run made progress).
   * @throws what the store throws: a stopped run that cannot say so is recorded as failed.
   */
  async stopped(): Promise<void> {
    await this.store.updateRunState(this.job.name, { running: null, failures: 0, retryAt: null });
  }

  /**
   * A failed run: one more consecutive failure and the time the timer may try again. The resume
   * cursor stays (the next run continues after the last flushed page) unless `dropResume`.
   * @returns when the timer retries.
   */
  async failed(dropResume: boolean): Promise<Date> {
    const failures = this.previous.failures + 1;
    const retryAt = new Date(this.clock.now().getTime() + retryDelayMs(failures, this.settings));
    await this.store.updateRunState(this.job.name, { failures, retryAt, running: null, ...(dropResume ? { resume: null } : {}) });
    return retryAt;
  }

}

/** The run-log record of a run whose marker was left behind. */
function cutOffRun(jobName: string, running: NonNullable<RunState['running']>): JobRunResult {
  return {
    jobName,
    trigger: running.trigger === 'manual' ? 'manual' : 'scheduled',
    startedAt: running.startedAt,
    endedAt: running.heartbeatAt,
    detected: 0,
    sentByQueue: {},
    timeStamps: 0,
    watermarkBefore: null,
    watermarkAfter: null,
    outcome: 'Failed',
    interrupted: true,
    error: `the run did not record its end (killed, timed out, or still running elsewhere); last sign of life ${running.heartbeatAt.toISOString()}`,
  };
}
