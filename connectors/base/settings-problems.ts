import type { z } from 'zod';
import { formatPath } from '../../src/platform/config-issue';
import { secretSettingProblem } from '../../src/platform/literal-secrets';
import type { SettingsProblem } from './registry';

/**
 * Settings problems from a type's settings schema (`settings-schema.ts`): one problem per wrong
 * value or unknown property, at its path (`settings.entityKeys.Orders[0]`), in the order the
 * settings were written — missing required ones first, since they have no place of their own.
 */

type Segment = PropertyKey;

const REQUIRED = (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : undefined);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where `at` is in the input: per level, the index of the key as written (-1: not given) or of the item. */
function positionIn(input: unknown, at: readonly Segment[]): number[] {
  const position: number[] = [];
  let node = input;
  for (const segment of at) {
    if (Array.isArray(node) && typeof segment === 'number') {
      position.push(segment);
      node = node[segment];
    } else if (isObject(node) && typeof segment === 'string') {
      const index = Object.keys(node).indexOf(segment);
      position.push(index);
      node = index < 0 ? undefined : node[segment];
    } else {
      position.push(-1);
      node = undefined;
    }
  }
  return position;
}

function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * Checks `settings` against `schema`. `secrets`: settings the type reads as secrets; one found
 * in `settings` is a literal secret, reported in the core's words (`secretSettingProblem`), not
 * as unknown.
 */
export function settingsProblems(schema: z.ZodType, settings: Record<string, unknown>, secrets: readonly string[] = []): SettingsProblem[] {
  const result = schema.safeParse(settings, { error: REQUIRED });
  if (result.success) return [];
  const found: Array<{ at: Segment[]; problem: SettingsProblem }> = [];
  const add = (at: Segment[], message: string) => found.push({ at, problem: { path: formatPath(['settings', ...at]), message } });
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        if (issue.path.length === 0 && secrets.includes(key)) found.push({ at: [key], problem: secretSettingProblem(key, settings[key]) });
        else add([...issue.path, key], issue.message);
      }
    } else if (issue.code === 'invalid_key') {
      // The key's own messages; the record's is only "invalid key".
      for (const inner of issue.issues) add(issue.path, inner.message);
    } else {
      add(issue.path, issue.message);
    }
  }
  // A value failing several checks of one rule (an integer out of range and fractional) is one problem.
  const seen = new Set<string>();
  const unique = found.filter(({ problem }) => {
    const key = `${problem.path}\n${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique
    .map((entry) => ({ ...entry, position: positionIn(settings, entry.at) }))
    .sort((a, b) => comparePositions(a.position, b.position))
    .map(({ problem }) => problem);
}

/** The secret references of a connection: each must be one the type reads, and name an app setting. */
export function secretReferenceProblems(type: string, secrets: Record<string, string>, allowed: readonly string[]): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const [key, envName] of Object.entries(secrets)) {
    if (!allowed.includes(key)) {
      problems.push({ path: `secrets.${key}`, message: `unknown secret of connector type ${type} (known: ${allowed.join(', ') || 'none'})` });
    } else if (typeof envName !== 'string' || !/^\S+$/.test(envName)) {
      problems.push({ path: `secrets.${key}`, message: 'must name an app setting (env var), without spaces' });
    }
  }
  return problems;
}
