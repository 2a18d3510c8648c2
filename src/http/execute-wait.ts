import { ConfigError } from '../platform/errors';

/**
 * App setting: how many seconds `POST jobs/{name}/execute` waits for its run before it answers
 * `202 Accepted` with a status URL instead of the run's result. Dry runs always wait.
 */
export const EXECUTE_WAIT_SETTING = 'HIGHWATER_EXECUTE_WAIT_SECONDS';

/**
 * Default wait: 100 s. Azure's front end drops an HTTP request after 230 s whatever
 * `functionTimeout` says; the default leaves room for a cold start and a slow caller.
 */
export const DEFAULT_EXECUTE_WAIT_SECONDS = 100;

/** Longest wait accepted: still under the front end's 230 s. */
export const MAX_EXECUTE_WAIT_SECONDS = 200;

/**
 * The wait in milliseconds from the environment.
 * @throws ConfigError naming the setting when it is not whole seconds from 0 to 200.
 */
export function readExecuteWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env[EXECUTE_WAIT_SETTING]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_EXECUTE_WAIT_SECONDS * 1000;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds >= 0 && seconds <= MAX_EXECUTE_WAIT_SECONDS)) {
    throw new ConfigError(`${EXECUTE_WAIT_SETTING}: expected whole seconds from 0 to ${MAX_EXECUTE_WAIT_SECONDS}, got ${JSON.stringify(raw)}`);
  }
  return seconds * 1000;
}
