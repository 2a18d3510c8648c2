import { secretSettingProblem } from '../../src/platform/literal-secrets';
import type { SettingsProblem } from '../base/registry';

/** Checks one setting value; returns the problems found at `path` (none when valid). */
export type Check = (value: unknown, path: string) => SettingsProblem[];

const problem = (path: string, message: string): SettingsProblem[] => [{ path, message }];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const nonEmptyString: Check = (v, path) => (typeof v === 'string' && v.trim() !== '' ? [] : problem(path, 'must be a non-empty string'));

export const boolean: Check = (v, path) => (typeof v === 'boolean' ? [] : problem(path, 'must be true or false'));

/** A property or entity set name as OData writes it (letters, digits, `_`). */
export const identifier: Check = (v, path) =>
  typeof v === 'string' && IDENTIFIER.test(v) ? [] : problem(path, 'must be an OData identifier (letters, digits and _, not starting with a digit)');

export const guid: Check = (v, path) => (typeof v === 'string' && GUID.test(v) ? [] : problem(path, 'must be a GUID such as 00000000-0000-0000-0000-000000000000'));

/** An absolute http(s) URL without query or fragment. */
export const httpUrl: Check = (v, path) => {
  let url: URL | undefined;
  try {
    url = typeof v === 'string' ? new URL(v) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '') {
    return problem(path, 'must be an absolute http(s) URL without query or fragment');
  }
  return [];
};

export const integerBetween =
  (min: number, max: number): Check =>
  (v, path) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? [] : problem(path, `must be an integer from ${min} to ${max}`);

export const oneOf =
  (...values: string[]): Check =>
  (v, path) =>
    typeof v === 'string' && values.includes(v) ? [] : problem(path, `must be one of ${values.join(', ')}`);

/** A non-empty array whose items all pass `item`. */
export const arrayOf =
  (item: Check): Check =>
  (v, path) =>
    Array.isArray(v) && v.length > 0 ? v.flatMap((x, i) => item(x, `${path}[${i}]`)) : problem(path, 'must be a non-empty array');

/** An object whose keys pass `key` and values pass `value`. */
export const recordOf =
  (value: Check, key: Check = identifier): Check =>
  (v, path) =>
    isObject(v) ? Object.entries(v).flatMap(([k, x]) => [...key(k, `${path}.${k}`), ...value(x, `${path}.${k}`)]) : problem(path, 'must be an object');

/** An object with known properties (`checks`); `required` ones must be present, unknown ones are reported. */
export function objectOf(checks: Record<string, Check>, required: readonly string[] = []): Check {
  return (v, path) => (isObject(v) ? checkProperties(v, path, checks, required, 'unknown property') : problem(path, 'must be an object'));
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkProperties(
  value: Record<string, unknown>,
  path: string,
  checks: Record<string, Check>,
  required: readonly string[],
  unknownMessage: string,
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const key of required) if (value[key] === undefined) problems.push({ path: `${path}.${key}`, message: 'is required' });
  for (const [key, item] of Object.entries(value)) {
    const check = checks[key];
    if (!check) problems.push({ path: `${path}.${key}`, message: `${unknownMessage} (known: ${Object.keys(checks).join(', ')})` });
    else if (item !== undefined) problems.push(...check(item, `${path}.${key}`));
  }
  return problems;
}

export interface ConnectionRules {
  /** Connector type, named in messages about unknown settings. */
  type: string;
  settings: Record<string, Check>;
  required: readonly string[];
  /** Secret names this type reads (each names an app setting). */
  secrets: readonly string[];
}

/**
 * Checks a connection's settings and secret names: required and unknown settings, each value,
 * secrets named (never given) in `settings`, unknown secrets, and env var names.
 */
export function checkConnection(rules: ConnectionRules, settings: Record<string, unknown>, secrets: Record<string, string>): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const withoutSecrets: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (rules.secrets.includes(key)) {
      // The core's words: config validation reports a literal secret once, not once per checker.
      problems.push(secretSettingProblem(key, value));
    } else withoutSecrets[key] = value;
  }
  problems.push(...checkProperties(withoutSecrets, 'settings', rules.settings, rules.required, `unknown setting of connector type ${rules.type}`));
  for (const [key, envName] of Object.entries(secrets)) {
    if (!rules.secrets.includes(key)) {
      problems.push({ path: `secrets.${key}`, message: `unknown secret of connector type ${rules.type} (known: ${rules.secrets.join(', ') || 'none'})` });
    } else if (typeof envName !== 'string' || !/^\S+$/.test(envName)) {
      problems.push({ path: `secrets.${key}`, message: 'must name an app setting (env var), without spaces' });
    }
  }
  return problems;
}
