import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigValidationError, type ConfigIssue } from '../platform/config-issue';
import { readTextFile, TextFileError } from '../platform/read-text-file';
import { DURATION_HINT, parseDuration } from '../platform/duration';
import { compilePattern, MOVER_ACTIONS, type Rule, type RuleMatch } from './requeue-rules';
import { toConfigIssues } from './zod-issues';

/**
 * A rules file of the dead-letter mover and the scheduled requeue (YAML or JSON; JSON is YAML too):
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
 * it has one. The wording is the mover's own (it names the value, unlike the config files'
 * messages: a rules file holds no secrets), so each schema carries its own messages.
 */

const PATTERN_KEYS = ['errorMessage', 'errorType', 'deadLetterReason'] as const;

/** `string "x"`, `number 42`, `a list`, `an object`, `null`: the wrong value as messages name it. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

type RawIssue = z.core.$ZodRawIssue;

/** The error of an object schema: one line per unknown key (`toConfigIssues` splits them), else `notAnObject`. */
function objectError(notAnObject: (input: unknown) => string) {
  return (issue: RawIssue) => {
    if (issue.code !== 'unrecognized_keys') return notAnObject(issue.input);
    const known = Object.keys((issue.inst as z.ZodObject).shape).join(', ');
    return issue.keys.map(() => `unknown property (expected one of ${known})`).join('\n');
  };
}

const patternError = (issue: RawIssue) => `expected a non-empty string (text to find, or /regular expression/), got ${describe(issue.input)}`;
const pattern = z
  .string({ error: patternError })
  .min(1, { error: patternError })
  .transform((source, ctx) => {
    try {
      return compilePattern(source);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

const isName = (value: unknown): value is string => typeof value === 'string' && value !== '';
const jobNames = z
  .custom<string | string[]>((value) => isName(value) || (Array.isArray(value) && value.length > 0 && value.every(isName)), {
    error: (issue) => `expected a job name or a non-empty list of job names, got ${describe(issue.input)}`,
  })
  .transform((value) => (typeof value === 'string' ? [value] : value));

const notADuration = (value: unknown) => `${DURATION_HINT}, got ${describe(value)}`;
const duration = z.string({ error: (issue) => notADuration(issue.input) }).transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined) ctx.addIssue({ code: 'custom', message: notADuration(text) });
  return ms ?? z.NEVER;
});

const matchSchema = z
  .strictObject(
    {
      errorMessage: pattern.optional(),
      errorType: pattern.optional(),
      deadLetterReason: pattern.optional(),
      job: jobNames.optional(),
      olderThan: duration.optional(),
      newerThan: duration.optional(),
    },
    { error: objectError((input) => (input === undefined ? 'required (use {} to match every message)' : `expected an object, got ${describe(input)}`)) },
  )
  .transform((m): RuleMatch => {
    const match: RuleMatch = {};
    for (const key of PATTERN_KEYS) if (m[key] !== undefined) match[key] = m[key];
    if (m.job !== undefined) match.jobs = m.job;
    if (m.olderThan !== undefined) match.olderThanMs = m.olderThan;
    if (m.newerThan !== undefined) match.newerThanMs = m.newerThan;
    return match;
  });

const nameError = (issue: RawIssue) => `expected a non-empty string, got ${describe(issue.input)}`;
const ruleSchema = z.strictObject(
  {
    name: z
      .string({ error: nameError })
      .refine((name) => name.trim() !== '', { error: nameError })
      .transform((name) => name.trim())
      .optional(),
    match: matchSchema,
    action: z.enum(MOVER_ACTIONS, {
      error: (issue) => (issue.input === undefined ? 'required' : `expected one of ${MOVER_ACTIONS.join(', ')}, got ${describe(issue.input)}`),
    }),
  },
  { error: objectError((input) => `expected an object with match and action, got ${describe(input)}`) },
);

/** The rules document; its output is the rules in file order. */
const requeueRulesSchema = z
  .strictObject(
    {
      rules: z.array(ruleSchema, { error: (issue) => (issue.input === undefined ? 'required' : `expected a list, got ${describe(issue.input)}`) }),
      $schema: z.unknown().optional(),
    },
    { error: objectError((input) => `expected an object with a top-level "rules" list, got ${describe(input)}`) },
  )
  .transform(({ rules }): Rule[] => rules.map(({ name, match, action }, index) => ({ index, name: name ?? `rules[${index}]`, match, action })));

/**
 * zod reports an object's unknown keys after the problems of its properties; a reader expects
 * them first (a misspelt key often explains the "required" that follows).
 */
function unknownKeysFirst(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    const inside = issue.code === 'unrecognized_keys' ? out.findIndex((o) => issue.path.every((segment, i) => o.path[i] === segment)) : -1;
    out.splice(inside < 0 ? out.length : inside, 0, issue);
  }
  return out;
}

/** Appends ` (rule "name")` to the issues inside a rule that has a valid name. */
function namedRule(issue: ConfigIssue, data: unknown): ConfigIssue {
  const index = /^rules\[(\d+)\]\./.exec(issue.path)?.[1];
  // Only reached for a path inside `rules[i]`, so data is an object with a rules list.
  const rule: unknown = index === undefined ? undefined : (data as { rules: unknown[] }).rules[Number(index)];
  const name = typeof rule === 'object' && rule !== null ? (rule as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name.trim() !== '' ? { ...issue, message: `${issue.message} (rule "${name.trim()}")` } : issue;
}

/** Validates a parsed rules document; `file` names it in issues. */
function rulesFromData(data: unknown, file: string): { rules?: Rule[]; issues: ConfigIssue[] } {
  const result = requeueRulesSchema.safeParse(data);
  if (result.success) return { rules: result.data, issues: [] };
  return { issues: toConfigIssues(file, [], new z.ZodError(unknownKeysFirst(result.error.issues))).map((issue) => namedRule(issue, data)) };
}

/** Parses rules text (YAML or JSON). @throws ConfigValidationError naming the file (and line) of every problem. */
export function parseRulesText(text: string, file: string): Rule[] {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    // The first line of the message names the problem and its line and column.
    const first = document.errors[0].message.split('\n')[0].replace(/:$/, '');
    throw new ConfigValidationError([{ file, path: '', message: `not valid YAML or JSON: ${first}` }]);
  }
  const { rules, issues } = rulesFromData(document.toJS(), file);
  if (rules === undefined) throw new ConfigValidationError(issues);
  return rules;
}

/**
 * Reads and validates a rules file; messages name it as `label` (default: the path).
 * @throws ConfigValidationError when it cannot be read or is invalid.
 */
export async function readRulesFile(file: string, label: string = file): Promise<Rule[]> {
  let text: string;
  try {
    // Regular files only, time-boxed: `--rules <fifo>` used to block (and ignore SIGTERM) for minutes.
    text = await readTextFile(file);
  } catch (err) {
    throw new ConfigValidationError([{ file: label, path: '', message: `cannot read the rules file (${err instanceof TextFileError ? err.reason : String(err)})` }]);
  }
  return parseRulesText(text, label);
}
