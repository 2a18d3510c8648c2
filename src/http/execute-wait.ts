import { APP_SETTINGS } from '../platform/app-settings';
import { readSetting } from '../platform/setting-spec';

/**
 * Default wait of `POST jobs/{name}/execute` for its run before it answers `202 Accepted`: 100 s.
 * Azure's front end drops an HTTP request after 230 s whatever `functionTimeout` says; the
 * default leaves room for a cold start and a slow caller.
 */
export const DEFAULT_EXECUTE_WAIT_SECONDS = readSetting({}, APP_SETTINGS.executeWaitSeconds);

/**
 * The wait in milliseconds from the environment (`HIGHWATER_EXECUTE_WAIT_SECONDS`).
 * @throws ConfigError naming the setting when it is not whole seconds from 0 to 200.
 */
export function readExecuteWaitMs(env: NodeJS.ProcessEnv): number {
  return readSetting(env, APP_SETTINGS.executeWaitSeconds) * 1000;
}
