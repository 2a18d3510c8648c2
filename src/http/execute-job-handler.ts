import { errorMessage } from '../platform/errors';
import type { InitializationService } from '../config/initialization-service';
import type { ProcessJobsForRetrievalInOrderService } from '../detect/process-jobs-service';
import { parseJsonBody } from './json-body';
import { executeJobBody } from './request-bodies';
import { httpError, type HttpInput, type HttpOutput } from './http-types';
import { runResultBody, runResultStatus } from './run-result';
import { RUN_STATUS_ROUTE } from './run-status-handler';
import type { RunTracker } from './run-tracker';

/** Route of the execute handler below `/api/`: the Functions app's ExecuteJob and the local host serve it. */
export const EXECUTE_JOB_ROUTE = 'jobs/{name}/execute';

/** What the execute handler uses of the runtime (the runtime is composed above this layer). */
export interface ExecuteJobServices {
  init: Pick<InitializationService, 'ensureInitialized' | 'findJob'>;
  detection: Pick<ProcessJobsForRetrievalInOrderService, 'runJob'>;
  acceptedRuns: Pick<RunTracker, 'runOrAccept' | 'heartbeatMs'>;
}

/**
 * `POST jobs/{name}/execute`: runs one job now (in parallel with the timer if need be: last writer
 * wins on the watermark, a stale writer only causes repeats). 200 with the run's counts, 404 for
 * an unknown job, 400 for a bad body, 500 when the job ran and failed (the body says why), and
 * 202 with the run's id and status URL (`GET runs/{id}`) when the run takes longer than
 * `HIGHWATER_EXECUTE_WAIT_SECONDS` (the run goes on). Dry runs always wait.
 * Body (optional JSON): `{ "dryRun": true, "limit": 20 }`.
 */
export async function executeJobHandler(runtime: ExecuteJobServices, input: HttpInput): Promise<HttpOutput> {
  const name = input.params.name ?? '';
  let options: { dryRun?: boolean; limit?: number } = {};
  if (input.body.trim() !== '') {
    const parsed = parseJsonBody(input.body, executeJobBody);
    if (!parsed.ok) return httpError(400, 'BadRequest', parsed.message);
    options = parsed.value;
  }
  try {
    await runtime.init.ensureInitialized();
  } catch (err) {
    return httpError(503, 'ConfigurationUnavailable', errorMessage(err));
  }
  const job = runtime.init.findJob(name);
  if (!job) return httpError(404, 'JobNotFound', `unknown job "${name}"`);
  const start = () => runtime.detection.runJob(job, { trigger: 'manual', dryRun: options.dryRun, limit: options.limit });
  // A dry run sends nothing and stops after `limit` changes: it is always waited for.
  const outcome = options.dryRun ? { finished: true as const, run: await start() } : await runtime.acceptedRuns.runOrAccept(job.name, start);
  if (outcome.finished) return { status: runResultStatus(outcome.run), body: runResultBody(outcome.run) };
  const { id, acceptedAt } = outcome.accepted;
  const statusUrl = runStatusUrl(input, id);
  return {
    status: 202,
    headers: { location: statusUrl, 'retry-after': String(Math.ceil(runtime.acceptedRuns.heartbeatMs / 1000)) },
    body: { id, job: job.name, state: 'Running', acceptedAt: acceptedAt.toISOString(), statusUrl },
  };
}

/**
 * `…/api/runs/{id}` on the host the request came to (`url` when the adapter knows it, else the
 * `host` header over http, as the local host serves). Never carries the caller's function key.
 */
function runStatusUrl(input: Pick<HttpInput, 'url' | 'headers'>, id: string): string {
  const path = `/api/${RUN_STATUS_ROUTE.replace('{id}', encodeURIComponent(id))}`;
  if (input.url) return new URL(path, input.url).toString();
  return input.headers.host ? `http://${input.headers.host}${path}` : path;
}
