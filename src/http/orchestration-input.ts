import { httpError, type HttpOutput } from './http-types';
import { parseJsonBody } from './json-body';
import { orchestrationStartBody } from './request-bodies';
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
    const parsed = parseJsonBody(body, orchestrationStartBody);
    if (!parsed.ok) return { ok: false, output: httpError(400, 'BadRequest', parsed.message) };
    named = parsed.value.jobs;
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
