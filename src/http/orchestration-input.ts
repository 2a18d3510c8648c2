import { httpError, type HttpOutput } from './http-types';
import { errorMessage } from '../platform/errors';
import type { Job } from '../model/job';
import type { GetChangesInput } from '../detect/durable/durable-contract';

export interface OrchestrationInputDependencies {
  config: {
    ensureInitialized(): Promise<unknown>;
    getJob(name: string): Job | undefined;
  };
  /** Due jobs in order (JobService.getJobsToRun). */
  dueJobs(now: Date): Promise<Job[]>;
  now(): Date;
}

export type ResolvedInput = { ok: true; input: GetChangesInput } | { ok: false; output: HttpOutput };

/** Most jobs one request may name. */
const MAX_NAMED_JOBS = 500;

/**
 * The input of a new `GetChangesOrchestrator` instance from the starter's request body (same
 * answer on Functions and on the local host). The orchestrator itself cannot read storage
 * (it must stay deterministic), so the starter decides which jobs run:
 * - empty body → the jobs due now, in order (the timer's rule, read from `LastCronRun`);
 * - `{ "jobs": ["a", "b"] }` → exactly these, in this order (each must exist; disabled ones too).
 * Errors: 400 for a bad body or an unknown job, 503 when the configuration cannot be loaded.
 */
export async function resolveGetChangesInput(deps: OrchestrationInputDependencies, body: string): Promise<ResolvedInput> {
  let named: string[] | undefined;
  if (body.trim() !== '') {
    const parsed = parseBody(body);
    if (!parsed.ok) return parsed;
    named = parsed.jobs;
  }
  try {
    await deps.config.ensureInitialized();
  } catch (err) {
    return { ok: false, output: httpError(503, 'ConfigurationUnavailable', errorMessage(err)) };
  }
  if (named) {
    const unknown = named.findIndex((name) => !deps.config.getJob(name));
    if (unknown >= 0) return { ok: false, output: httpError(400, 'BadRequest', `body.jobs[${unknown}]: unknown job "${named[unknown]}"`) };
    return { ok: true, input: { jobs: named } };
  }
  const due = await deps.dueJobs(deps.now());
  return { ok: true, input: { jobs: due.map((job) => job.name) } };
}

function parseBody(body: string): { ok: true; jobs: string[] | undefined } | { ok: false; output: HttpOutput } {
  const bad = (message: string) => ({ ok: false as const, output: httpError(400, 'BadRequest', message) });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    return bad(`body: not JSON (${errorMessage(err)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad('body: expected a JSON object');
  const record = parsed as Record<string, unknown>;
  const extra = Object.keys(record).find((key) => key !== 'jobs');
  if (extra !== undefined) return bad(`body.${extra}: unknown property (allowed: jobs)`);
  if (record.jobs === undefined) return { ok: true, jobs: undefined };
  if (!Array.isArray(record.jobs)) return bad('body.jobs: expected an array of job names');
  if (record.jobs.length === 0) return bad('body.jobs: expected at least one job name');
  if (record.jobs.length > MAX_NAMED_JOBS) return bad(`body.jobs: expected at most ${MAX_NAMED_JOBS} job names`);
  const seen = new Set<string>();
  for (const [i, name] of record.jobs.entries()) {
    if (typeof name !== 'string' || name.trim() === '') return bad(`body.jobs[${i}]: expected a job name`);
    if (seen.has(name)) return bad(`body.jobs[${i}]: "${name}" is listed twice`);
    seen.add(name);
  }
  return { ok: true, jobs: record.jobs as string[] };
}
