import { ConfigError } from '../../src/platform/errors';
import type { FilterCondition } from '../../src/model/job';
import { identifier, literal, quoteString } from './odata-literals';

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

/**
 * One job filter condition as an OData `$filter` expression. `in` / `notIn` become `or` / `and`
 * chains (understood by every OData V4 service, unlike the 4.01 `in`); an empty `in` matches
 * nothing, an empty `notIn` everything. `like` supports `%` at the start and/or end only
 * (`contains`, `startswith`, `endswith`); `_` is an ordinary character.
 * @param what names the condition in errors, e.g. `job "j": filter[0]`.
 */
export function renderCondition(condition: FilterCondition, what: string): string {
  const field = identifier(condition.field, `${what}.field`);
  const { op, value } = condition;
  switch (op) {
    case 'isNull':
      return `${field} eq null`;
    case 'isNotNull':
      return `${field} ne null`;
    case 'in':
    case 'notIn': {
      if (!Array.isArray(value)) throw new ConfigError(`${what}.value: ${op} needs an array`);
      if (value.length === 0) return op === 'in' ? 'false' : 'true';
      const [compare, join] = op === 'in' ? ['eq', ' or '] : ['ne', ' and '];
      return `(${value.map((v) => `${field} ${compare} ${literal(v, `${what}.value`)}`).join(join)})`;
    }
    case 'like':
      if (typeof value !== 'string') throw new ConfigError(`${what}.value: like needs a text pattern`);
      return renderLike(field, value, what);
    default:
      if (!COMPARISONS.has(op)) throw new ConfigError(`${what}.op: unknown operator ${JSON.stringify(op)}`);
      if (value === undefined || Array.isArray(value)) throw new ConfigError(`${what}.value: ${op} needs a single value`);
      return `${field} ${op} ${literal(value, `${what}.value`)}`;
  }
}

function renderLike(field: string, pattern: string, what: string): string {
  const starts = pattern.startsWith('%');
  const ends = pattern.length > 1 && pattern.endsWith('%');
  const inner = pattern.slice(starts ? 1 : 0, ends ? -1 : undefined);
  if (inner.includes('%')) throw new ConfigError(`${what}.value: OData supports % only at the start or end of a like pattern`);
  const text = quoteString(inner);
  if (starts && ends) return `contains(${field},${text})`;
  if (starts) return `endswith(${field},${text})`;
  if (ends) return `startswith(${field},${text})`;
  return `${field} eq ${text}`;
}

/** All conditions joined with `and`; undefined when there are none. */
export function renderFilter(conditions: readonly FilterCondition[], what: string): string | undefined {
  if (conditions.length === 0) return undefined;
  return conditions.map((c, i) => `(${renderCondition(c, `${what}[${i}]`)})`).join(' and ');
}

/**
 * Whether a read record matches a condition (soft-delete flags are evaluated on the client:
 * OData has no portable computed column). Values compare as read (text, number, boolean);
 * comparisons with null never match, as in SQL and OData.
 */
export function matchesCondition(row: Readonly<Record<string, unknown>>, condition: FilterCondition): boolean {
  const actual = row[condition.field] ?? null;
  const { op, value } = condition;
  switch (op) {
    case 'isNull':
      return actual === null;
    case 'isNotNull':
      return actual !== null;
    case 'eq':
      return value === null ? actual === null : actual !== null && same(actual, value);
    case 'ne':
      return value === null ? actual !== null : actual !== null && !same(actual, value);
    case 'in':
      return actual !== null && Array.isArray(value) && value.some((v) => same(actual, v));
    case 'notIn':
      return actual !== null && Array.isArray(value) && !value.some((v) => same(actual, v));
    case 'like': {
      if (actual === null || typeof value !== 'string') return false;
      const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*');
      return new RegExp(`^${escaped}$`, 's').test(String(actual));
    }
    default: {
      if (actual === null || value === null || value === undefined || Array.isArray(value)) return false;
      const order = typeof actual === 'number' && typeof value === 'number' ? actual - value : String(actual) < String(value) ? -1 : String(actual) > String(value) ? 1 : 0;
      return op === 'gt' ? order > 0 : op === 'ge' ? order >= 0 : op === 'lt' ? order < 0 : order <= 0;
    }
  }
}

function same(actual: unknown, expected: unknown): boolean {
  if (typeof actual === typeof expected) return actual === expected;
  return String(actual) === String(expected);
}
