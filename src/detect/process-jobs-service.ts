import { scrubSecrets } from '../bus/message-properties';
import { errorMessage, TransientError } from '../platform/errors';
import type { Job } from '../model/job';
import { WatermarkValue } from '../model/watermark-value';
import { METRIC_NAMES } from '../telemetry/metrics';
import type { DetectionDependencies } from './detection-dependencies';
import type { JobRunResult } from './job-run';
import { JobRunLock } from './job-run-lock';
import { detectChanges } from './read-changes';
import { RunProgress } from './run-progress';
import { readRunSettings, type RunSettings } from './run-settings';
import { MemoryBackoff } from './memory-backoff';
import { QueueRoom, waitForRoom } from './queue-room';
import { EMPTY_RUN_STATE, type RunState, type RunStateStore } from './run-state';

export interface RunJobOptions {
  trigger?: JobRunResult['trigger'];
  /** Dry run: read and serialize, send nothing, keep the watermark. Default false. */
  dryRun?: boolean;
  /** Dry runs only: stop after this many changes. Default 20. */
  limit?: number;
  /**
   * Time budget: after a page read at or past this time the run stops, flushes, saves its resume
   * cursor and ends (`stoppedEarly`); the next run continues. Default: none.
   */
  deadline?: Date;
  /**
   * Backpressure: the run stops at a page boundary once it has sent `HIGHWATER_QUEUE_DEPTH_LIMIT`
   * messages or its queue holds that many, cursor saved (`stoppedEarly: 'backpressure'`). Only the
   * timer's passes ({@link ProcessJobsForRetrievalInOrderService.execute}) resume such runs and
   * ask for it. Default false.
   */
  queueLimit?: boolean;
}

export interface ExecuteOptions {
  /** Jobs are not started at or past this time (they stay due), and a running job stops at it. Default: none. */
  deadline?: Date;
}

/**
 * Change detection (docs/architecture.md, Detection): due jobs in order; per job pages of changes → batched
 * sends by priority → flush → watermark and `LastCronRun` written only at the end. A run that
 * breaks off keeps the old watermark, so the next run rereads (duplicates, never gaps).
 */
export class ProcessJobsForRetrievalInOrderService {
  constructor(private readonly deps: DetectionDependencies) {}

  /**
   * Runs every due job in order; one failing job does not stop the jobs after it. A job backing
   * off after failures (`retryAt` in the future) is left for a later tick.
   *
   * Backpressure (queue-room.ts): a run stopped at the end of its turn or by a full queue is still
   * due (watermark and `LastCronRun` unchanged). After the pass, this waits until those queues are
   * down to half the limit and makes another pass over the jobs due then: the stopped ones resume
   * after their cursors, jobs that fell due meanwhile run between two of a flood's turns. It ends
   * when a pass stops no run, at the deadline, or when a queue does not drain within
   * `ROOM_MAX_WAIT_MS` (the next tick goes on).
   */
  async execute(options: ExecuteOptions = {}): Promise<JobRunResult[]> {
    await this.deps.config.ensureInitialized();
    const results: JobRunResult[] = [];
    for (;;) {
      const held = await this.pass(options, results);
      const { queueDepth } = this.deps;
      if (held.length === 0 || !queueDepth) return results;
      const queues = held.map((job) => this.deps.queues.work[job.priority]);
      const deadline = options.deadline ? { deadline: options.deadline } : {};
      if (!(await waitForRoom(queues, this.settings().queueDepthLimit, queueDepth, this.deps.clock, (m) => this.deps.log.warn(m), deadline))) return results;
    }
  }

  /** One pass over the jobs due now, their runs appended to `results`. @returns the jobs stopped by backpressure. */
  private async pass(options: ExecuteOptions, results: JobRunResult[]): Promise<Job[]> {
    const now = this.deps.clock.now();
    const due = await this.deps.dueJobs(now);
    const states = due.length > 0 ? await this.readRunStates() : undefined;
    const jobs = due.filter((job) => !this.backoff.holds(job.name, now, states ? (states.get(job.name) ?? EMPTY_RUN_STATE) : undefined));
    const held: Job[] = [];
    for (const job of jobs) {
      if (options.deadline && this.deps.clock.now().getTime() >= options.deadline.getTime()) break;
      const run = await this.runJob(job, { trigger: 'scheduled', queueLimit: true, ...(options.deadline ? { deadline: options.deadline } : {}) });
      results.push(run);
      if (run.stoppedEarly === 'backpressure') held.push(job);
    }
    return held;
  }

  /** Failure backoff of this process: holds when the run state cannot be written. */
  private readonly backoff = new MemoryBackoff();

  /** All jobs' run states; none when they cannot be read (the in-memory backoff still holds). */
  private async readRunStates(): Promise<Map<string, RunState> | undefined> {
    try {
      return await this.runStates()?.getAllRunStates();
    } catch (err) {
      this.deps.log.warn(`run states not readable, backing off failed jobs from memory: ${errorMessage(err)}`);
      return undefined;
    }
  }

  private runStates(): RunStateStore | undefined {
    return this.deps.runStates;
  }

  private settings(): RunSettings {
    return (this.cachedSettings ??= this.deps.runSettings ?? readRunSettings());
  }

  private cachedSettings?: RunSettings;

  private readonly progressListeners = new Set<(run: Readonly<JobRunResult>) => void>();

  /**
   * Calls `listener` after each page a run (not a dry run) has read, with the run so far: its
   * `detected` and `sentByQueue` (what the bus accepted yet) grow while the run goes on — the local
   * host's progress line counts them live. The same object is recorded when the run ends.
   * @returns removes the listener.
   */
  onRunProgress(listener: (run: Readonly<JobRunResult>) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** Runs of one job in this process, one after the other (dry runs write nothing: not held). */
  private readonly runs = new JobRunLock<JobRunResult>();

  /**
   * Runs one job now, or once the run of it that is going in this process has ended (runs of
   * one job never overlap here: `job-run-lock.ts`). Never throws for a job failure: the result
   * says `Failed`.
   */
  async runJob(job: Job, options: RunJobOptions = {}): Promise<JobRunResult> {
    if (options.dryRun) return this.runJobNow(job, options);
    const key = `${options.trigger ?? 'manual'}|${options.deadline?.toISOString() ?? ''}|${options.queueLimit ?? false}`;
    return this.runs.exclusive(job.name, key, () => this.runJobNow(job, options));
  }

  private async runJobNow(job: Job, options: RunJobOptions): Promise<JobRunResult> {
    const { deps } = this;
    const dryRun = options.dryRun ?? false;
    const startedAt = deps.clock.now();
    const run: JobRunResult = {
      jobName: job.name,
      trigger: dryRun ? 'dryRun' : (options.trigger ?? 'manual'),
      startedAt,
      endedAt: startedAt,
      detected: 0,
      sentByQueue: {},
      timeStamps: 0,
      watermarkBefore: null,
      watermarkAfter: null,
      outcome: 'Succeeded',
      ...(dryRun ? { preview: [] } : {}),
    };
    let progress: RunProgress | undefined;
    try {
      await deps.config.ensureInitialized();
      const record = await deps.watermarks.getWatermarkByJobName(job.name);
      run.watermarkBefore = record.watermark;
      run.watermarkAfter = record.watermark;
      const watermark = WatermarkValue.initialize(job.watermark.type, record.watermark, (m) => deps.log.warn(m), job.name);
      progress = dryRun ? undefined : await this.beginProgress(job, run.trigger);
      if (progress?.resume) {
        run.resumed = true;
        if (progress.resume.changeTracker !== null) watermark.advance(progress.resume.changeTracker);
      }
      const room = options.queueLimit ? this.room(job) : undefined;
      const read = { job, watermark, run, dryRun, limit: options.limit ?? 20, progress, deadline: options.deadline, room, listeners: this.progressListeners, resync: record.resync };
      const stopped = await detectChanges(deps, read);
      if (stopped) {
        run.stoppedEarly = stopped;
        await progress?.stopped();
      } else if (!dryRun) {
        await deps.watermarks.updateWatermarkByJobName(job.name, watermark.value, startedAt, record.resync);
        run.watermarkAfter = watermark.value;
      }
    } catch (err) {
      run.outcome = 'Failed';
      // Scrubbed here, once: the text is logged, stored in `runs` and answered by ExecuteJob.
      run.error = scrubSecrets(errorMessage(err));
      run.watermarkAfter = run.watermarkBefore;
      deps.log.error(`job "${job.name}" failed: ${run.error}`, { job: job.name });
      await this.recordFailure(job, run, progress, err);
    }
    run.endedAt = deps.clock.now();
    if (!dryRun && run.outcome === 'Succeeded') this.backoff.clear(job.name);
    if (!dryRun) await this.finish(job, run);
    return run;
  }

  /** The backpressure of one run on its queue; none when the limit is off or depths cannot be read. */
  private room(job: Job): QueueRoom | undefined {
    const limit = this.settings().queueDepthLimit;
    const { queueDepth } = this.deps;
    if (limit <= 0 || !queueDepth) return undefined;
    return new QueueRoom(this.deps.queues.work[job.priority], limit, queueDepth, (m) => this.deps.log.warn(`job "${job.name}": ${m}`, { job: job.name }));
  }

  /** The run's progress bookkeeping (none without a run-state store); records a run left cut off. */
  private async beginProgress(job: Job, trigger: JobRunResult['trigger']): Promise<RunProgress | undefined> {
    const store = this.runStates();
    const mapping = this.deps.config.getMapping(job.mapping);
    if (!store || !mapping) return undefined;
    const warn = (m: string) => this.deps.log.warn(m, { job: job.name });
    let begun: Awaited<ReturnType<typeof RunProgress.begin>>;
    try {
      begun = await RunProgress.begin(store, job, mapping, trigger, this.settings(), this.deps.clock, warn);
    } catch (err) {
      // Bookkeeping is best effort: without it the run reads from the watermark, as the spec's runs do.
      warn(`job "${job.name}": run state not readable or writable, running without resume cursor (a failure backoff is held in memory): ${errorMessage(err)}`);
      return undefined;
    }
    if (begun.cutOff) await this.finish(job, begun.cutOff);
    return begun.progress;
  }

  /**
   * One more consecutive failure and when the timer retries. A resumed run that failed before
   * reading anything for a reason other than a transient one drops its cursor: the source no
   * longer accepts that position, and the next run starts from the watermark.
   */
  private async recordFailure(job: Job, run: JobRunResult, progress: RunProgress | undefined, err: unknown): Promise<void> {
    if (!this.runStates()) return;
    let stored: Date | undefined;
    if (progress) {
      const dropResume = progress.resume !== null && run.detected === 0 && !(err instanceof TransientError);
      if (dropResume) this.deps.log.warn(`job "${job.name}": the saved resume position was not accepted; the next run starts from the watermark`, { job: job.name });
      try {
        stored = await progress.failed(dropResume);
      } catch (stateErr) {
        this.deps.log.warn(`could not record the failure of job "${job.name}" for its backoff: ${errorMessage(stateErr)}`);
      }
    }
    // Held in memory as well: a store that cannot be written must not turn the backoff off.
    run.retryAt = this.backoff.failed(job.name, this.deps.clock.now(), this.settings(), stored, progress?.failuresBefore);
    if (!stored) this.deps.log.warn(`job "${job.name}": backoff held in memory until ${run.retryAt.toISOString()} (run state not writable)`, { job: job.name });
  }

  private async finish(job: Job, run: JobRunResult): Promise<void> {
    const { deps } = this;
    deps.metrics.track(METRIC_NAMES.changesDetected, run.detected, { job: job.name });
    deps.metrics.track(METRIC_NAMES.jobRunDurationMs, run.endedAt.getTime() - run.startedAt.getTime(), { job: job.name, outcome: run.outcome });
    try {
      await deps.runLog?.record(run);
    } catch (err) {
      deps.log.warn(`could not write the run log of job "${job.name}": ${errorMessage(err)}`);
    }
  }
}
