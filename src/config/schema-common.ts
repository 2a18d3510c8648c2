import { z } from 'zod';
import type { FilterCondition } from '../model/job';

/**
 * Building blocks shared by the connection, mapping and job schemas. Metadata (ids for `$defs`,
 * descriptions for editor hovers) lives in a private registry, not zod's global one, so that
 * loading this module twice or next to other zod users never clashes.
 */

export interface ConfigSchemaMeta {
  id?: string;
  title?: string;
  description?: string;
}

export const configSchemaRegistry = z.registry<ConfigSchemaMeta>();

/** Attaches a description (and optionally an id for `$defs`) for the generated JSON Schema. */
export function documented<T extends z.ZodType>(schema: T, description: string, id?: string): T {
  const meta: ConfigSchemaMeta = id === undefined ? { description } : { id, description };
  configSchemaRegistry.add(schema, meta);
  return schema;
}

export function nonEmptyString(): z.ZodString {
  return z.string().min(1);
}

function hasForbiddenKeyCharacter(value: string): boolean {
  return [...value].some((ch) => {
    const code = ch.charCodeAt(0);
    return '/\\#?'.includes(ch) || code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });
}

/**
 * Names are references (and job names become table row keys), so they must be exact and may not
 * hold the characters Azure Table Storage forbids in keys.
 */
export function objectName(what: string): z.ZodString {
  return documented(
    z
      .string()
      .min(1)
      .refine((v) => v.trim() === v, 'must not start or end with whitespace')
      .refine((v) => !hasForbiddenKeyCharacter(v), 'must not contain / \\ # ? or control characters'),
    `Unique ${what} name; other entries refer to it by this name.`,
  );
}

const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);
export const nullableScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const LIST_OPS = new Set(['in', 'notIn']);
const NULL_OPS = new Set(['isNull', 'isNotNull']);

/** Why a condition's value does not fit its operator, or undefined when it does. */
function conditionValueProblem(condition: FilterCondition): string | undefined {
  const { op, value } = condition;
  if (NULL_OPS.has(op)) return value === undefined ? undefined : `op "${op}" takes no value`;
  if (LIST_OPS.has(op)) {
    if (!Array.isArray(value)) return `op "${op}" needs a list value`;
    return value.length === 0 ? `op "${op}" needs at least one value` : undefined;
  }
  if (value === undefined) return `op "${op}" needs a value`;
  if (Array.isArray(value)) return `op "${op}" needs a single value, not a list (use "in")`;
  if (value === null) return `op "${op}" cannot compare with null; use "isNull" or "isNotNull"`;
  if (op === 'like' && typeof value !== 'string') return 'op "like" needs a string value';
  return undefined;
}

export const filterConditionSchema = documented(
  z
    .strictObject({
      field: documented(nonEmptyString(), 'Source field the condition tests.'),
      op: z.enum(['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'in', 'notIn', 'like', 'isNull', 'isNotNull']),
      value: documented(
        z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(scalarSchema)]).optional(),
        'Required for every operator except isNull / isNotNull; a list for in / notIn. Always bound, never concatenated.',
      ),
    })
    .superRefine((condition, ctx) => {
      const problem = conditionValueProblem(condition);
      if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
    }),
  'A structured filter condition on a source field.',
  'FilterCondition',
);
