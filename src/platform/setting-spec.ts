import type { z } from 'zod';
import { ConfigError } from './errors';

/**
 * One app setting declared once (an environment variable locally, a Function App setting in
 * Azure): its name, how it is read and validated, and what `docs/settings.md` says about it.
 * The declarations are in `app-settings.ts`; readers, validation and the docs page all use them.
 */

/** The sections of `docs/settings.md`, in page order. */
export const SETTING_SECTIONS = ['storage', 'serviceBus', 'identity', 'queues', 'runs', 'localState', 'http', 'push', 'telemetry'] as const;
export type SettingSection = (typeof SETTING_SECTIONS)[number];

/** The value a schema is given: the setting trimmed, `undefined` when unset or blank. */
export type RawSetting = string | undefined;

/** A setting's zod schema, built when first asked for (see `setting-schemas.ts`). */
export type SettingSchema<T> = () => z.ZodType<T, RawSetting>;

export interface AppSetting<T = unknown> {
  /** The environment variable / app setting name, exactly. */
  name: string;
  /** Who reads it: Highwater's code (validated by {@link schema}), or only the Functions host or an SDK. */
  readBy: 'code' | 'platform';
  /** The kind of value, as the docs show it (e.g. `seconds`, `NORMAL \| FULL`). */
  type: string;
  /** The default as the docs show it (markdown); undefined: none (unset means off or not used). */
  default?: string;
  /** What it does, as the docs show it (markdown, one paragraph). */
  description: string;
  /** What it is set to locally (`local.settings.example.json`, the CLI's environment). */
  local: string;
  /** What it is set to in Azure (the Function App's settings in the Bicep). */
  azure: string;
  section: SettingSection;
  /**
   * A tuning knob left out of the Bicep and `local.settings.example.json` on purpose: unset, its
   * default applies. Every other setting the code reads is declared in both (infra consistency test).
   */
  optional?: true;
  /** Parses the trimmed value (undefined when unset); its issue messages follow the setting's name. */
  schema: SettingSchema<T>;
}

/** Declares a setting; the type of its value is the schema's output. */
export const defineSetting = <T>(setting: AppSetting<T>): AppSetting<T> => setting;

/** The value of `name` in `env`, trimmed; blank counts as unset. */
export function rawSetting(env: NodeJS.ProcessEnv, name: string): RawSetting {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Each problem of one value, as `message` (without the setting's name). */
export function settingProblems(setting: AppSetting, raw: RawSetting): string[] {
  const result = setting.schema().safeParse(raw);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

/**
 * The setting's value in `env` (its default when unset).
 * @throws ConfigError `<NAME>: <what is wrong>` naming the setting and the value.
 */
export function readSetting<T>(env: NodeJS.ProcessEnv, setting: AppSetting<T>): T {
  return parseSetting(setting, rawSetting(env, setting.name));
}

/**
 * A value already taken from the environment (trimmed here; blank counts as unset).
 * @throws ConfigError `<NAME>: <what is wrong>`.
 */
export function parseSetting<T>(setting: AppSetting<T>, value: string | undefined): T {
  const raw = value === undefined || value.trim() === '' ? undefined : value.trim();
  const result = setting.schema().safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(`${setting.name}: ${result.error.issues[0]?.message ?? 'invalid'}`);
}
