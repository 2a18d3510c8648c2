import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { EXECUTE_JOB_ROUTE, executeJobHandler } from '../src/http/execute-job-handler';
import { runtimeOr503, toHttpInput, toHttpResponse } from './support/http-adapter';

/**
 * `POST /api/jobs/{name}/execute` (function key): runs one job now. 200 with the run's counts,
 * 404 unknown job, 400 bad body, 500 when the job ran and failed, 503 when the runtime or the
 * configuration is unavailable. The logic is `executeJobHandler`, shared with the local host.
 */
export async function executeJob(request: HttpRequest): Promise<HttpResponseInit> {
  const got = await runtimeOr503();
  if ('response' in got) return got.response;
  return toHttpResponse(await executeJobHandler(got.runtime, await toHttpInput(request)));
}

app.http('ExecuteJob', { methods: ['POST'], route: EXECUTE_JOB_ROUTE, authLevel: 'function', handler: executeJob });
