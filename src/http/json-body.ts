import { z } from 'zod';
import { formatPath } from '../platform/config-issue';
import { errorMessage } from '../platform/errors';

/** A request body that was read, or the one message that says why it cannot be. */
export type BodyResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Reads a JSON request body against a zod object schema. The messages name the property path
 * from `body` and never echo a value (a secret pasted into the wrong field stays out of logs):
 * - `body: not JSON (…)` and `body: expected a JSON object`;
 * - `body.<key>: unknown property (allowed: …)` for the first key the schema does not know,
 *   before any value is looked at (a misspelt option is the likelier mistake);
 * - otherwise the first failing property in the schema's own order, with the message its
 *   schema gives (`error` on the property schema, or an issue raised by its refinement).
 */
export function parseJsonBody<Shape extends z.ZodRawShape>(body: string, schema: z.ZodObject<Shape>): BodyResult<z.output<z.ZodObject<Shape>>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    return { ok: false, message: `body: not JSON (${errorMessage(err)})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, message: 'body: expected a JSON object' };
  const keys = Object.keys(schema.shape);
  const unknown = Object.keys(parsed).find((key) => !keys.includes(key));
  if (unknown !== undefined) return { ok: false, message: `body.${unknown}: unknown property (allowed: ${keys.join(', ')})` };
  const result = schema.safeParse(parsed);
  if (result.success) return { ok: true, value: result.data };
  const order = (issue: z.core.$ZodIssue) => keys.indexOf(String(issue.path[0]));
  const first = [...result.error.issues].sort((a, b) => order(a) - order(b) || a.path.length - b.path.length)[0];
  return { ok: false, message: `${formatPath(['body', ...first.path])}: ${first.message}` };
}
