import { app, type HttpRequest, type HttpResponse, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { GET_CHANGES_ORCHESTRATOR } from '../src/detect/durable/durable-contract';
import { resolveGetChangesInput } from '../src/http/orchestration-input';
import { orchestrationInputDependencies } from '../src/runtime/runtime-dependencies';
import { runtimeOr503, toHttpResponse } from './support/http-adapter';

/** Route below `/api/` (the local host serves the same one with its durable driver). */
export const START_ORCHESTRATION_ROUTE = `orchestrators/${GET_CHANGES_ORCHESTRATOR}`;

/**
 * `POST /api/orchestrators/GetChangesOrchestrator` (function key): starts the durable detection
 * for the jobs due now, or for `{ "jobs": [...] }`, and answers 202 with the instance id and
 * the status URLs (`statusQueryGetUri`, …) of the Durable Functions extension.
 */
export async function startGetChangesOrchestration(request: HttpRequest, context: InvocationContext): Promise<HttpResponse | HttpResponseInit> {
  const got = await runtimeOr503();
  if ('response' in got) return got.response;
  const resolved = await resolveGetChangesInput(orchestrationInputDependencies(got.runtime), await request.text());
  if (!resolved.ok) return toHttpResponse(resolved.output);
  const client = df.getClient(context);
  const instanceId = await client.startNew(GET_CHANGES_ORCHESTRATOR, { input: resolved.input });
  context.log(`started ${GET_CHANGES_ORCHESTRATOR} ${instanceId} for ${resolved.input.jobs.length} job(s)`);
  return client.createCheckStatusResponse(request, instanceId);
}

app.http('StartGetChangesOrchestration', {
  methods: ['POST'],
  route: START_ORCHESTRATION_ROUTE,
  authLevel: 'function',
  extraInputs: [df.input.durableClient()],
  handler: startGetChangesOrchestration,
});
