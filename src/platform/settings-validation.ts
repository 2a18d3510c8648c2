import { nextOccurrence } from './schedule';
import { ConfigValidationError, type ConfigIssue } from './config-issue';
import { APP_SETTINGS, appSettingIssues, SETTINGS_SOURCE } from './app-settings';
import { readSetting, type AppSetting } from './setting-spec';

/**
 * Checks the app settings before anything starts: each declared setting with its own schema
 * (`app-settings.ts`), then what involves several. An invalid `GetChangesSchedule` used to pass
 * until the scheduler first used it, and then crashed the running host with a cron-parser stack
 * trace. Issues read like configuration issues: `app settings: <NAME>: <what is wrong>`; none
 * shows a connection string or a URL's credentials.
 */

const QUEUE_SETTINGS: readonly AppSetting<string>[] = [
  APP_SETTINGS.queueHigh,
  APP_SETTINGS.queueNormal,
  APP_SETTINGS.queueLow,
  APP_SETTINGS.queueTransitiveHigh,
  APP_SETTINGS.queueTransitiveNormal,
  APP_SETTINGS.queueTransitiveLow,
  APP_SETTINGS.queueIgnored,
];

/** The value when the setting is valid on its own (its problems are reported already), else undefined. */
function validValue<T>(env: NodeJS.ProcessEnv, setting: AppSetting<T>): T | undefined {
  try {
    return readSetting(env, setting);
  } catch {
    return undefined;
  }
}

/** Problems across settings: a schedule the time zone cannot run, a queue named by two settings. */
function crossIssues(env: NodeJS.ProcessEnv): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (setting: AppSetting, message: string) => issues.push({ file: SETTINGS_SOURCE, path: setting.name, message });
  const schedule = validValue(env, APP_SETTINGS.getChangesSchedule);
  if (schedule !== undefined) {
    try {
      nextOccurrence(schedule, new Date(), validValue(env, APP_SETTINGS.timeZone) ?? 'UTC');
    } catch (err) {
      add(APP_SETTINGS.getChangesSchedule, `invalid NCRONTAB "${schedule}": ${(err as Error).message}`);
    }
  }
  const owner = new Map<string, string>();
  for (const setting of QUEUE_SETTINGS) {
    const value = validValue(env, setting);
    if (value === undefined) continue;
    const first = owner.get(value.toLowerCase());
    if (first) add(setting, `queue "${value}" is already the queue of ${first}: every queue setting needs a queue of its own`);
    else owner.set(value.toLowerCase(), setting.name);
  }
  return issues;
}

/** Every problem of the app settings in `env`, each setting's own first. */
function settingsIssues(env: NodeJS.ProcessEnv): ConfigIssue[] {
  return [...appSettingIssues(env), ...crossIssues(env)];
}

/** @throws ConfigValidationError (`ConfigError`) listing every problem. */
export function validateSettings(env: NodeJS.ProcessEnv): void {
  const issues = settingsIssues(env);
  if (issues.length > 0) throw new ConfigValidationError(issues);
}
