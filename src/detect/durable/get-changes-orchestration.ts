import { errorMessage } from '../../platform/errors';
import {
  GET_CHANGES_ACTIVITY,
  JOB_STATE_ENTITY,
  JOB_STATE_KEY,
  type GetChangesInput,
  type GetChangesOutput,
  type GetChangesResume,
  type GetChangesStatus,
  type JobActivityParam,
  type JobActivityResult,
  type JobOrchestrationResult,
  type JobStateRequest,
} from './durable-contract';
import { parseOrchestrationInput } from './durable-payloads';
import { JOB_LEASE_MS } from './job-state';

/** An entity instance, by name and key (Durable's `EntityId` without the SDK). */
export interface EntityAddress {
  name: string;
  key: string;
}

/**
 * What the orchestration needs from its engine. The Functions app adapts `context.df` to it
 * (functions/GetChangesOrchestrator.ts); the local host's driver implements it directly. Each
 * call returns a task to `yield`; the engine resumes the generator with the task's result, or
 * throws the task's error into it.
 */
export interface OrchestrationPort<TTask> {
  input(): unknown;
  /** This orchestration's instance id: the owner of the job leases it takes. */
  instanceId(): string;
  /** Replay-safe current time (Durable: `currentUtcDateTime`). */
  now(): Date;
  callEntity(entity: EntityAddress, operation: string, input: unknown): TTask;
  callActivity(name: string, input: unknown): TTask;
  setStatus(status: GetChangesStatus | null): void;
  /**
   * Ends this generation and starts the instance again with `input`, history cleared
   * (Durable: `context.df.continueAsNew`). The generator returns right after calling it.
   */
  continueAsNew(input: GetChangesInput): void;
}

export const JOB_STATE: EntityAddress = { name: JOB_STATE_ENTITY, key: JOB_STATE_KEY };

/** A held lease is renewed before the next page once this much of it has passed. */
const RENEW_AFTER_MS = JOB_LEASE_MS / 4;

/**
 * Pages one generation reads before it continues as new. Every task adds events to the
 * history, and every episode replays the whole history: a job of 100,000 changes at 3 records a
 * page would make one history of ~100,000 events, replayed ~33,000 times. 100 pages keep each
 * generation at a few hundred events.
 */
const PAGES_PER_GENERATION = 100;

/**
 * `GetChangesOrchestrator` (docs/architecture.md, Detection). Per job, in input order: `InProgress` → skip, else
 * `Add`, then `GetChangesActivity` page by page until `hasMoreRecord` is false, then `Remove` —
 * in every exit path, also when a page fails. A failed job does not stop the jobs after it.
 * The job is held under a lease (job-state.ts), renewed between pages once a quarter of it has
 * passed; a run whose lease was taken over stops that job (Failed) without releasing it.
 * After {@link PAGES_PER_GENERATION} pages the orchestration continues as new with the state
 * it needs (`resume`): same instance id, so the lease stays held; the last generation's output
 * holds every job's result.
 *
 * Deterministic (the engine replays it): no clock but `port.now()`, no I/O, no randomness.
 * Activities are not retried here: a failed job is read again from the stored watermark by the
 * next run.
 */
export function* getChangesOrchestration<TTask>(port: OrchestrationPort<TTask>): Generator<TTask, GetChangesOutput, unknown> {
  const input = parseOrchestrationInput(port.input());
  const resume = input.resume;
  const generation: Generation = {
    jobNames: input.jobs,
    startedAt: resume?.startedAt ?? port.now().toISOString(),
    results: resume ? [...resume.done] : [],
    pagesLeft: PAGES_PER_GENERATION,
  };
  for (let index = generation.results.length; index < input.jobs.length; index++) {
    // Only the first job of a generation can be the one the previous generation handed over.
    const resumed = resume && index === resume.done.length ? resume : undefined;
    const continuedAsNew = yield* runJob(port, generation, input.jobs[index], resumed);
    if (continuedAsNew) return output(port, generation);
  }
  port.setStatus(null);
  return output(port, generation);
}

/** What one generation carries from job to job. */
interface Generation {
  readonly jobNames: readonly string[];
  readonly startedAt: string;
  /** The result of every job so far; the job being run is the last. */
  readonly results: JobOrchestrationResult[];
  /** Pages this generation may still read before it continues as new. */
  pagesLeft: number;
}

function output<TTask>(port: OrchestrationPort<TTask>, generation: Generation): GetChangesOutput {
  return { startedAt: generation.startedAt, endedAt: port.now().toISOString(), jobs: generation.results };
}

/**
 * One job: held (unless `resumed`, whose lease this instance already holds), read page by page
 * and released. Its result is recorded in `generation.results` even when it is skipped or fails.
 * @returns true when the generation continued as new in the middle of this job (then the job
 *   is neither finished nor released: the next generation goes on with it).
 */
function* runJob<TTask>(port: OrchestrationPort<TTask>, generation: Generation, jobName: string, resumed?: GetChangesResume): Generator<TTask, boolean, unknown> {
  // A copy: an engine may hand every replay the same input object, and the result is counted up.
  const result: JobOrchestrationResult = resumed ? { ...resumed.current } : { jobName, outcome: 'Skipped', pages: 0, detected: 0, sent: 0, watermark: null };
  generation.results.push(result);
  if (!resumed) {
    if ((yield port.callEntity(JOB_STATE, 'InProgress', lease(port, jobName))) === true) return false;
    if ((yield port.callEntity(JOB_STATE, 'Add', lease(port, jobName))) !== true) return false;
  }
  let continuedAsNew = false;
  try {
    continuedAsNew = yield* readPages(port, generation, result, resumed);
    if (!continuedAsNew) result.outcome = 'Succeeded';
  } catch (err) {
    result.outcome = 'Failed';
    result.error = errorMessage(err);
  } finally {
    if (!continuedAsNew) yield port.callEntity(JOB_STATE, 'Remove', { job: jobName, owner: port.instanceId() } satisfies JobStateRequest);
  }
  return continuedAsNew;
}

/**
 * Reads a held job's pages into `result`, renewing its lease as it goes, until the last page or
 * until the generation's pages are used up (then it continues as new and returns true).
 * @throws Error when the lease was taken over, a page fails or a page has more but no cursor.
 */
function* readPages<TTask>(
  port: OrchestrationPort<TTask>,
  generation: Generation,
  result: JobOrchestrationResult,
  resumed: GetChangesResume | undefined,
): Generator<TTask, boolean, unknown> {
  const jobName = result.jobName;
  let renewedAt = resumed?.renewedAt ?? port.now().getTime();
  let param: JobActivityParam = resumed?.next ?? { jobName, pageNumber: 0 };
  for (;;) {
    if (generation.pagesLeft === 0) {
      const done = generation.results.slice(0, -1);
      port.continueAsNew({ jobs: [...generation.jobNames], resume: { startedAt: generation.startedAt, done, current: result, next: param, renewedAt } });
      return true;
    }
    if (port.now().getTime() - renewedAt >= RENEW_AFTER_MS) {
      if ((yield port.callEntity(JOB_STATE, 'Renew', lease(port, jobName))) !== true) {
        throw new Error(`job "${jobName}": its JobState lease expired and another run took the job over; this run stops`);
      }
      renewedAt = port.now().getTime();
    }
    port.setStatus({ jobName, page: param.pageNumber });
    const page = asActivityResult(yield port.callActivity(GET_CHANGES_ACTIVITY, param));
    generation.pagesLeft--;
    addPage(result, page);
    if (!page.hasMoreRecord) return false;
    if (page.cursor === null) throw new Error(`page ${page.page} has more records but no cursor`);
    param = { jobName, pageNumber: page.page + 1, cursor: page.cursor, startWatermark: page.startWatermark, watermark: page.watermark, ...(page.resync ? { resync: page.resync } : {}) };
  }
}

/** The lease request for `jobName`, at the engine's replay-safe time. */
function lease<TTask>(port: OrchestrationPort<TTask>, jobName: string): JobStateRequest {
  return { job: jobName, owner: port.instanceId(), at: port.now().toISOString() };
}

function addPage(result: JobOrchestrationResult, page: JobActivityResult): void {
  result.pages++;
  result.detected += page.detected;
  result.sent += page.sent;
  if (page.skipped) result.skipped = (result.skipped ?? 0) + page.skipped;
  result.watermark = page.watermark;
}

function asActivityResult(value: unknown): JobActivityResult {
  const r = value as Partial<JobActivityResult> | null;
  if (!r || typeof r !== 'object' || typeof r.hasMoreRecord !== 'boolean' || typeof r.page !== 'number') {
    throw new Error(`${GET_CHANGES_ACTIVITY} returned ${JSON.stringify(value ?? null)}, not a page result`);
  }
  return r as JobActivityResult;
}
