import type { z } from 'zod';
import { formatPath, type ConfigIssue, type PathSegment } from '../platform/config-issue';
import { unknownPropertyMessage } from './suggest';

/**
 * Turns zod issues into config issues with short, stable messages. Messages describe the
 * *type* of a wrong value, never the value itself (except enum-like choices), so that a secret
 * typed into the wrong place does not end up in an error message.
 */

type RawIssue = z.core.$ZodRawIssue;

/** `string`, `number`, `array`, `null`, `object`, … */
export function describeType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'list';
  if (typeof input === 'object') return 'object';
  return typeof input;
}

const EXPECTED_NAMES: Record<string, string> = {
  int: 'an integer',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function expectedName(expected: string): string {
  return EXPECTED_NAMES[expected] ?? expected;
}

/** Short quoted form of a choice the user typed, e.g. a priority or an operation name. */
function quoted(input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function choices(values: readonly unknown[]): string {
  return values.map((v) => quoted(v)).join(', ');
}

function unionExpectations(errors: unknown): string[] {
  if (!Array.isArray(errors)) return [];
  const names: string[] = [];
  for (const branch of errors as Array<Array<{ code?: string; expected?: string }>>) {
    const first = branch[0];
    if (first?.code === 'invalid_type' && first.expected) names.push(expectedName(first.expected));
  }
  return [...new Set(names)];
}

/** zod per-parse error map: our wording for the built-in checks; custom checks keep theirs. */
export function configErrorMessage(issue: RawIssue): string | undefined {
  const input: unknown = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'required';
      if (issue.expected === 'int' && typeof input === 'number') return `expected an integer, got ${input}`;
      return `expected ${expectedName(issue.expected)}, got ${describeType(input)}`;
    case 'invalid_value':
      return `expected one of ${choices(issue.values)}; got ${quoted(input)}`;
    case 'invalid_union': {
      if ('discriminator' in issue && typeof issue.discriminator === 'string') {
        const options = 'options' in issue && Array.isArray(issue.options) ? issue.options : [];
        const actual = input && typeof input === 'object' ? (input as Record<string, unknown>)[issue.discriminator] : undefined;
        const got = actual === undefined ? 'it is missing' : `got ${quoted(actual)}`;
        return `expected one of ${choices(options)}; ${got}`;
      }
      const expected = unionExpectations(issue.errors);
      if (expected.length === 0) return undefined;
      const list = expected.length === 1 ? expected[0] : `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1]}`;
      return `expected ${list}, got ${describeType(input)}`;
    }
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      return issue.inclusive ? `must be at least ${issue.minimum}` : `must be greater than ${issue.minimum}`;
    case 'too_big':
      return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`;
    case 'unrecognized_keys':
      // One message per key, one line each ({@link toConfigIssues} splits them): the object's own
      // property names (known names never hold a line break) give the "did you mean" hint.
      return issue.keys.map((key) => unknownPropertyMessage(key, shapeKeys(issue.inst))).join('\n');
    default:
      return undefined;
  }
}

/** The property names of the object schema that reported unknown keys (none when unknown). */
function shapeKeys(inst: unknown): string[] {
  const shape = (inst as { _zod?: { def?: { shape?: unknown } } } | undefined)?._zod?.def?.shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : [];
}

/** Config issues for one zod failure; `prefix` locates the parsed value inside its file. */
export function toConfigIssues(file: string, prefix: readonly PathSegment[], error: z.ZodError): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const messages = issue.message.split('\n');
      issue.keys.forEach((key, i) => out.push({ file, path: formatPath([...at, key]), message: messages.length === issue.keys.length ? messages[i] : 'unknown property' }));
    } else {
      out.push({ file, path: formatPath(at), message: issue.message });
    }
  }
  return out;
}
