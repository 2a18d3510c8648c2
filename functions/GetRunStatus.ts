import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { RUN_STATUS_ROUTE, runStatusHandler } from '../src/http/run-status-handler';
import { runtimeOr503, toHttpInput, toHttpResponse } from './support/http-adapter';

/**
 * `GET /api/runs/{id}` (function key): the state of a run ExecuteJob answered 202 for, read from
 * the `runstatus` table (so any instance answers). 404 for an unknown id, 503 when the runtime
 * is unavailable. The logic is `runStatusHandler`, shared with the local host.
 */
export async function getRunStatus(request: HttpRequest): Promise<HttpResponseInit> {
  const got = await runtimeOr503();
  if ('response' in got) return got.response;
  return toHttpResponse(await runStatusHandler(got.runtime, await toHttpInput(request)));
}

app.http('GetRunStatus', { methods: ['GET'], route: RUN_STATUS_ROUTE, authLevel: 'function', handler: getRunStatus });
