import { runGetChangesActivity } from '../detect/durable/get-changes-activity';
import { resolveGetChangesInput } from '../http/orchestration-input';
import { activityDependencies, orchestrationInputDependencies } from '../runtime/runtime-dependencies';
import { GET_CHANGES_ORCHESTRATOR } from '../detect/durable/durable-contract';
import { httpError, type HttpRoute } from '../http/http-types';
import { RUN_STATUS_ROUTE, runStatusHandler } from '../http/run-status-handler';
import type { Runtime } from '../runtime/runtime';
import { DurableDriver } from './durable-driver';

/**
 * The durable path on the local host: `POST /api/orchestrators/GetChangesOrchestrator` (the same
 * route as the Functions app's starter) answers 202 with the instance id and a status URL, and
 * `GET /api/orchestrators/instances/{id}` reports the instance — run by {@link DurableDriver}, a
 * local stand-in for the Durable Task engine stepping the same orchestrator generator.
 */
export function durableRoutes(runtime: Runtime, baseUrl: () => string): { routes: HttpRoute[]; driver: DurableDriver } {
  const driver = new DurableDriver({
    activity: (input) => runGetChangesActivity(activityDependencies(runtime), input),
    clock: runtime.clock,
    log: runtime.log,
  });
  const statusUrl = (id: string) => `${baseUrl()}/api/orchestrators/instances/${id}`;
  const routes: HttpRoute[] = [
    {
      method: 'POST',
      route: `orchestrators/${GET_CHANGES_ORCHESTRATOR}`,
      handler: async (input) => {
        const resolved = await resolveGetChangesInput(orchestrationInputDependencies(runtime), input.body);
        if (!resolved.ok) return resolved.output;
        const id = driver.start(resolved.input);
        return {
          status: 202,
          headers: { location: statusUrl(id) },
          body: { id, statusQueryGetUri: statusUrl(id), jobs: resolved.input.jobs },
        };
      },
    },
    {
      method: 'GET',
      route: 'orchestrators/instances/{id}',
      handler: async (input) => {
        const status = driver.status(input.params.id ?? '');
        return status ? { status: 200, body: status } : httpError(404, 'InstanceNotFound', `unknown instance "${input.params.id}"`);
      },
    },
    // ExecuteJob's accepted runs (202), as the Functions app's GetRunStatus.
    { method: 'GET', route: RUN_STATUS_ROUTE, handler: (input) => runStatusHandler(runtime, input) },
  ];
  return { routes, driver };
}
