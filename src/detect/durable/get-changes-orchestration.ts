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
} from './durable-contract';
import { JOB_LEASE_MS, type JobStateRequest } from './job-state';

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
export const PAGES_PER_GENERATION = 100;

/**
 * `GetChangesOrchestrator` (ARCHITECTURE §4). Per job, in input order: `InProgress` → skip, else
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
  const startedAt = resume?.startedAt ?? port.now().toISOString();
  const jobs: JobOrchestrationResult[] = resume ? [...resume.done] : [];
  let pagesLeft = PAGES_PER_GENERATION;
  for (let index = jobs.length; index < input.jobs.length; index++) {
    const jobName = input.jobs[index];
    const lease = (): JobStateRequest => ({ job: jobName, owner: port.instanceId(), at: port.now().toISOString() });
    const resumed = resume && index === resume.done.length ? resume : undefined;
    // A copy: an engine may hand every replay the same input object, and the result is counted up.
    const result: JobOrchestrationResult = resumed ? { ...resumed.current } : { jobName, outcome: 'Skipped', pages: 0, detected: 0, sent: 0, watermark: null };
    jobs.push(result);
    if (!resumed) {
      if ((yield port.callEntity(JOB_STATE, 'InProgress', lease())) === true) continue;
      if ((yield port.callEntity(JOB_STATE, 'Add', lease())) !== true) continue;
    }
    let renewedAt = resumed?.renewedAt ?? port.now().getTime();
    let continuing = false;
    try {
      let param: JobActivityParam = resumed?.next ?? { jobName, pageNumber: 0 };
      for (;;) {
        if (pagesLeft === 0) {
          continuing = true;
          port.continueAsNew({ jobs: input.jobs, resume: { startedAt, done: jobs.slice(0, -1), current: result, next: param, renewedAt } } satisfies GetChangesInput);
          return { startedAt, endedAt: port.now().toISOString(), jobs };
        }
        if (port.now().getTime() - renewedAt >= RENEW_AFTER_MS) {
          if ((yield port.callEntity(JOB_STATE, 'Renew', lease())) !== true) {
            throw new Error(`job "${jobName}": its JobState lease expired and another run took the job over; this run stops`);
          }
          renewedAt = port.now().getTime();
        }
        port.setStatus({ jobName, page: param.pageNumber });
        const page = asActivityResult(yield port.callActivity(GET_CHANGES_ACTIVITY, param));
        pagesLeft--;
        result.pages++;
        result.detected += page.detected;
        result.sent += page.sent;
        if (page.skipped) result.skipped = (result.skipped ?? 0) + page.skipped;
        result.watermark = page.watermark;
        if (!page.hasMoreRecord) break;
        if (page.cursor === null) throw new Error(`page ${page.page} has more records but no cursor`);
        param = { jobName, pageNumber: page.page + 1, cursor: page.cursor, startWatermark: page.startWatermark, watermark: page.watermark };
      }
      result.outcome = 'Succeeded';
    } catch (err) {
      result.outcome = 'Failed';
      result.error = errorMessage(err);
    } finally {
      // Continuing as new keeps the job: the next generation goes on with it under the same lease.
      if (!continuing) yield port.callEntity(JOB_STATE, 'Remove', { job: jobName, owner: port.instanceId() } satisfies JobStateRequest);
    }
  }
  port.setStatus(null);
  return { startedAt, endedAt: port.now().toISOString(), jobs };
}

/** @throws Error naming the property; the orchestration fails before touching any job. */
export function parseOrchestrationInput(raw: unknown): GetChangesInput {
  const where = 'GetChangesOrchestrator input';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${where}: expected an object with "jobs"`);
  const jobs = (raw as { jobs?: unknown }).jobs;
  if (!Array.isArray(jobs)) throw new Error(`${where}.jobs: expected an array of job names`);
  jobs.forEach((name, i) => {
    if (typeof name !== 'string' || name.trim() === '') throw new Error(`${where}.jobs[${i}]: expected a job name`);
  });
  const resume = (raw as { resume?: unknown }).resume;
  if (resume === undefined) return { jobs: jobs as string[] };
  return { jobs: jobs as string[], resume: parseResume(resume, jobs as string[], `${where}.resume`) };
}

/** The hand-over written by {@link getChangesOrchestration} itself; checked all the same. */
function parseResume(raw: unknown, jobs: readonly string[], where: string): GetChangesResume {
  const r = raw as Partial<GetChangesResume> | null;
  if (typeof r !== 'object' || r === null) throw new Error(`${where}: expected an object`);
  if (typeof r.startedAt !== 'string') throw new Error(`${where}.startedAt: expected a time`);
  if (!Array.isArray(r.done) || r.done.length >= jobs.length) throw new Error(`${where}.done: expected the results of fewer jobs than ${jobs.length}`);
  const job = jobs[r.done.length];
  if (typeof r.current !== 'object' || r.current === null || r.current.jobName !== job) throw new Error(`${where}.current: expected the result so far of job "${job}"`);
  if (typeof r.next !== 'object' || r.next === null || r.next.jobName !== job || typeof r.next.pageNumber !== 'number') {
    throw new Error(`${where}.next: expected the next page of job "${job}"`);
  }
  if (typeof r.renewedAt !== 'number' || !Number.isFinite(r.renewedAt)) throw new Error(`${where}.renewedAt: expected a time in ms`);
  return r as GetChangesResume;
}

function asActivityResult(value: unknown): JobActivityResult {
  const r = value as Partial<JobActivityResult> | null;
  if (!r || typeof r !== 'object' || typeof r.hasMoreRecord !== 'boolean' || typeof r.page !== 'number') {
    throw new Error(`${GET_CHANGES_ACTIVITY} returned ${JSON.stringify(value ?? null)}, not a page result`);
  }
  return r as JobActivityResult;
}
