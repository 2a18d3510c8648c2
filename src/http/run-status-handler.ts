import type { RunTracker } from './run-tracker';
import { httpError, type HttpInput, type HttpOutput } from './http-types';
import { isRunId } from './run-status-store';

/** Route of the status of an accepted run, below `/api/` (Functions app and local host). */
export const RUN_STATUS_ROUTE = 'runs/{id}';

/**
 * `GET runs/{id}`: the state of a run ExecuteJob answered 202 for — `Running` (with its last
 * heartbeat), `Succeeded` / `Failed` (with `result`, what ExecuteJob answers for a finished run),
 * `Interrupted` (the host stopped first) or `Lost` (the heartbeat stopped: the instance went
 * away). 200 for a known id whatever the run's outcome; 404 for an unknown or malformed one.
 */
export async function runStatusHandler(runtime: { acceptedRuns: Pick<RunTracker, 'status'> }, input: HttpInput): Promise<HttpOutput> {
  const id = input.params.id ?? '';
  if (!isRunId(id)) return httpError(404, 'RunNotFound', `unknown run "${id}" (run ids look like 9998215412345-0a1b2c3d)`);
  const record = await runtime.acceptedRuns.status(id);
  if (!record) return httpError(404, 'RunNotFound', `unknown run "${id}" (kept: the newest 500 accepted runs)`);
  return {
    status: 200,
    body: {
      id: record.id,
      job: record.job,
      state: record.state,
      acceptedAt: record.acceptedAt.toISOString(),
      heartbeatAt: record.heartbeatAt.toISOString(),
      ...(record.endedAt ? { endedAt: record.endedAt.toISOString() } : {}),
      ...(record.error ? { error: record.error } : {}),
      ...(record.result !== undefined ? { result: record.result } : {}),
    },
  };
}
