import { z } from 'zod';

/**
 * The one schema language of connection settings: zod schemas, each carrying the message its
 * connector has always reported. A message says what the value must be and never repeats the
 * value (a secret typed into the wrong place must not end up in an error), except a choice's
 * spelling where a type asks for it. A missing required value reads `is required` unless the
 * setting says more ({@link settingsProblems} supplies the default). Each type's schema is also
 * what the generated JSON Schema describes (`schema/highwater-config.schema.json`), so editors
 * complete and check the settings exactly as validation does.
 */

/** A message, or one built from the wrong value (only for choices: see above). */
export type SettingMessage = string | ((input: unknown) => string);

/** What the generated JSON Schema shows of a setting: its description and documented default. */
export interface SettingDoc {
  description: string;
  default?: unknown;
}

/**
 * Descriptions of settings. A registry of their own, not zod's global one (as the config's
 * schemas, src/config/schema-common.ts): the JSON Schema generator reads both.
 */
export const settingDocs = z.registry<SettingDoc>();

/**
 * Attaches a description and, when given, the default the connector applies (the JSON Schema
 * shows it; validation does not fill it in: connectors read their settings as written).
 */
export function described<T extends z.ZodType>(schema: T, description: string, defaultValue?: unknown): T {
  settingDocs.add(schema, defaultValue === undefined ? { description } : { description, default: defaultValue });
  return schema;
}

/** zod's `error` parameter: `message` for a wrong value, `required` (or the default) for a missing one. */
function messages(message: SettingMessage, required?: string): { error: (issue: { input?: unknown }) => string | undefined } {
  return { error: (issue) => (issue.input === undefined ? required : typeof message === 'string' ? message : message(issue.input)) };
}

export function nonEmptyString(required?: string): z.ZodString {
  return z.string(messages('must be a non-empty string', required)).regex(/\S/);
}

export function boolean(): z.ZodBoolean {
  return z.boolean(messages('must be true or false'));
}

export function integerBetween(min: number, max: number): z.ZodNumber {
  return z.int(messages(`must be an integer from ${min} to ${max}`)).min(min).max(max);
}

/** A string matching `pattern`, else `message`. */
export function matching(pattern: RegExp, message: string): z.ZodString {
  return z.string(messages(message)).regex(pattern);
}

/** One of `values`; the message defaults to `must be one of a, b, c`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: SettingMessage = `must be one of ${values.join(', ')}`) {
  return z.enum(values, messages(message));
}

/** A string that `accept`s; `message` otherwise. `abort`: later checks of the value do not run when it fails. */
export function acceptedString(accept: (value: string) => boolean, message: string): z.ZodString {
  return z.string(messages(message)).refine(accept, { ...messages(message), abort: true });
}

/** A non-empty list whose items all pass `item`. */
export function nonEmptyArray<T extends z.ZodType>(item: T): z.ZodArray<T> {
  return z.array(item, messages('must be a non-empty array')).min(1);
}

/** An object of any keys passing `key`, each value passing `value`. */
export function recordOf<K extends z.ZodType<string, string>, V extends z.ZodType>(key: K, value: V, notObject = 'must be an object') {
  // Only the record's own complaint: a bad key reports its key schema's message.
  return z.record(key, value, { error: (issue) => (issue.code === 'invalid_type' && issue.input !== undefined ? notObject : undefined) });
}

/**
 * An object of known properties (`shape`); a property not in it is reported as `unknown`,
 * followed by the known names in the shape's order, e.g. `unknown property (known: kind, scope)`.
 */
export function knownProperties<S extends z.core.$ZodLooseShape>(shape: S, unknown = 'unknown property', notObject = 'must be an object') {
  const known = `${unknown} (known: ${Object.keys(shape).join(', ')})`;
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? known : issue.input === undefined ? undefined : notObject),
  });
}
