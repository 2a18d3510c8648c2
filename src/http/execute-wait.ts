import { APP_SETTINGS } from '../platform/app-settings';
import { readSetting } from '../platform/setting-spec';

export { DEFAULT_EXECUTE_WAIT_SECONDS } from '../platform/app-settings';

/**
 * The wait in milliseconds from the environment (`HIGHWATER_EXECUTE_WAIT_SECONDS`).
 * @throws ConfigError naming the setting when it is not whole seconds from 0 to 200.
 */
export function readExecuteWaitMs(env: NodeJS.ProcessEnv): number {
  return readSetting(env, APP_SETTINGS.executeWaitSeconds) * 1000;
}
