import { CONNECTION_DECLARATIONS } from './app-settings-connections';
import { RUNTIME_DECLARATIONS } from './app-settings-runtime';
import { rawSetting, settingProblems, type AppSetting } from './setting-spec';
import type { ConfigIssue } from './config-issue';

export { TRIGGER_CONNECTION_SETTING } from './app-settings-connections';
export { DEFAULT_EXECUTE_WAIT_SECONDS, DEFAULT_LOCAL_PROCESSING } from './app-settings-runtime';

/**
 * The registry of app settings: every setting Highwater's code, the Functions host or an SDK
 * reads, declared once (name, type, default, description, schema). `readSettings` validates them,
 * `docs/settings.md` is generated from them (`npm run docs:settings`), and the infra consistency
 * test checks the Bicep and `local.settings.example.json` against them.
 */
// Runtime first: validation reports in this order, and the time zone comes before the schedule it runs.
export const APP_SETTINGS = { ...RUNTIME_DECLARATIONS, ...CONNECTION_DECLARATIONS };

/** Every declared setting, in declaration order. */
export const APP_SETTING_LIST: readonly AppSetting[] = Object.values(APP_SETTINGS);

/** The `file` of settings issues. */
export const SETTINGS_SOURCE = 'app settings';

/** Every problem of every declared setting in `env`, as `app settings: <NAME>: <what is wrong>` issues. */
export function appSettingIssues(env: NodeJS.ProcessEnv): ConfigIssue[] {
  return APP_SETTING_LIST.filter((s) => s.readBy === 'code').flatMap((setting) =>
    settingProblems(setting, rawSetting(env, setting.name)).map((message) => ({ file: SETTINGS_SOURCE, path: setting.name, message })),
  );
}
