import { readTextFile, TextFileError } from '../../src/platform/read-text-file';
import { parseDocument } from 'yaml';
import { UsageError } from '../../src/cli/cli-error';
import { DURATION_HINT, parseDuration } from './duration';
import { compilePattern, MOVER_ACTIONS, type MoverAction, type Rule, type RuleMatch, type TextPattern } from './rules';

/**
 * Reads and validates a rules file (YAML or JSON; JSON is YAML too):
 *
 * ```yaml
 * rules:
 *   - name: transient            # optional, shown in reports
 *     match:                     # required; {} matches every message
 *       errorMessage: /timeout|ECONNRESET/
 *       deadLetterReason: MaxDeliveryCountExceeded
 *       job: [crm-accounts-to-erp]
 *       olderThan: 1h
 *     action: Resubmit           # Resubmit | None | Skip
 * ```
 *
 * Every problem is reported, each as `<file>: <path>: <message>`, the rule's name appended when
 * it has one; the error is a UsageError (exit code 2).
 */

const RULE_KEYS = ['name', 'match', 'action'];
const PATTERN_KEYS = ['errorMessage', 'errorType', 'deadLetterReason'] as const;
const MATCH_KEYS = [...PATTERN_KEYS, 'job', 'olderThan', 'newerThan'];

type Issues = string[];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKeys(record: Record<string, unknown>, allowed: readonly string[], path: string, issues: Issues): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) issues.push(`${path}${path ? '.' : ''}${key}: unknown property (expected one of ${allowed.join(', ')})`);
  }
}

function pattern(value: unknown, path: string, issues: Issues): TextPattern | undefined {
  if (typeof value !== 'string' || value === '') {
    issues.push(`${path}: expected a non-empty string (text to find, or /regular expression/), got ${describe(value)}`);
    return undefined;
  }
  try {
    return compilePattern(value);
  } catch (err) {
    issues.push(`${path}: ${(err as Error).message}`);
    return undefined;
  }
}

function jobNames(value: unknown, path: string, issues: Issues): string[] | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((name) => typeof name === 'string' && name !== '')) {
    issues.push(`${path}: expected a job name or a non-empty list of job names, got ${describe(value)}`);
    return undefined;
  }
  return list as string[];
}

function duration(value: unknown, path: string, issues: Issues): number | undefined {
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) issues.push(`${path}: ${DURATION_HINT}, got ${describe(value)}`);
  return ms;
}

function ruleMatch(value: unknown, path: string, issues: Issues): RuleMatch {
  if (!isRecord(value)) {
    issues.push(`${path}: ${value === undefined ? 'required (use {} to match every message)' : `expected an object, got ${describe(value)}`}`);
    return {};
  }
  unknownKeys(value, MATCH_KEYS, path, issues);
  const match: RuleMatch = {};
  for (const key of PATTERN_KEYS) {
    if (value[key] !== undefined) match[key] = pattern(value[key], `${path}.${key}`, issues);
  }
  if (value.job !== undefined) match.jobs = jobNames(value.job, `${path}.job`, issues);
  if (value.olderThan !== undefined) match.olderThanMs = duration(value.olderThan, `${path}.olderThan`, issues);
  if (value.newerThan !== undefined) match.newerThanMs = duration(value.newerThan, `${path}.newerThan`, issues);
  return match;
}

function rule(value: unknown, index: number, issues: Issues): Rule | undefined {
  const path = `rules[${index}]`;
  if (!isRecord(value)) {
    issues.push(`${path}: expected an object with match and action, got ${describe(value)}`);
    return undefined;
  }
  const own: Issues = [];
  unknownKeys(value, RULE_KEYS, path, own);
  const named = typeof value.name === 'string' && value.name.trim() !== '';
  if (value.name !== undefined && !named) own.push(`${path}.name: expected a non-empty string, got ${describe(value.name)}`);
  const match = ruleMatch(value.match, `${path}.match`, own);
  const action = value.action;
  if (!MOVER_ACTIONS.includes(action as MoverAction)) {
    own.push(`${path}.action: ${action === undefined ? 'required' : `expected one of ${MOVER_ACTIONS.join(', ')}, got ${describe(action)}`}`);
  }
  const name = named ? (value.name as string).trim() : path;
  issues.push(...own.map((issue) => (named ? `${issue} (rule "${name}")` : issue)));
  return own.length === 0 ? { index, name, match, action: action as MoverAction } : undefined;
}

/** Validates a parsed rules document. @throws UsageError listing every issue. */
export function rulesFromData(data: unknown, file: string): Rule[] {
  const issues: Issues = [];
  let rules: Rule[] = [];
  if (!isRecord(data)) {
    issues.push(`expected an object with a top-level "rules" list, got ${describe(data)}`);
  } else {
    unknownKeys(data, ['rules', '$schema'], '', issues);
    if (!Array.isArray(data.rules)) {
      issues.push(`rules: ${data.rules === undefined ? 'required' : `expected a list, got ${describe(data.rules)}`}`);
    } else {
      rules = data.rules.flatMap((entry, index) => rule(entry, index, issues) ?? []);
    }
  }
  if (issues.length > 0) throw new UsageError(issues.map((issue) => `${file}: ${issue}`).join('\n'));
  return rules;
}

/** Parses rules text (YAML or JSON). @throws UsageError naming the file (and line) of any problem. */
export function parseRules(text: string, file: string): Rule[] {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    // The first line of the message names the problem and its line and column.
    const first = document.errors[0].message.split('\n')[0].replace(/:$/, '');
    throw new UsageError(`${file}: not valid YAML or JSON: ${first}`);
  }
  return rulesFromData(document.toJS(), file);
}

/**
 * Reads and validates a rules file; messages name it as `label` (default: the path).
 * @throws UsageError when it cannot be read or is invalid.
 */
export async function loadRulesFile(file: string, label: string = file): Promise<Rule[]> {
  let text: string;
  try {
    // Regular files only, time-boxed: `--rules <fifo>` used to block (and ignore SIGTERM) for minutes.
    text = await readTextFile(file);
  } catch (err) {
    throw new UsageError(`${label}: cannot read the rules file (${err instanceof TextFileError ? err.reason : String(err)})`);
  }
  return parseRules(text, label);
}
