import { ConfigError } from '../../src/platform/errors';
import type { FilterCondition } from '../../src/model/job';
import { quoteIdentifier, type SqlDialect, SqlParams } from './dialect';

/** Column alias of the soft-delete flag added to change queries. */
export const DELETED_FLAG = '__highwater_deleted';

const COMPARISONS = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=', like: 'LIKE' } as const;

/**
 * One condition as SQL with bound values (never concatenated). `eq` / `ne` with a null value
 * mean `IS NULL` / `IS NOT NULL`; an empty `in` matches nothing, an empty `notIn` everything.
 * As in SQL, `ne`, `notIn` and comparisons never match a NULL column.
 * @param what names the condition in errors, e.g. `job "j": filter[0]`.
 */
function renderCondition(condition: FilterCondition, params: SqlParams, what: string): string {
  const column = quoteIdentifier(condition.field, `${what}.field`);
  const { op, value } = condition;
  if ((op === 'eq' || op === 'ne') && value === null) return `${column} IS ${op === 'eq' ? '' : 'NOT '}NULL`;
  switch (op) {
    case 'isNull':
      return `${column} IS NULL`;
    case 'isNotNull':
      return `${column} IS NOT NULL`;
    case 'in':
    case 'notIn': {
      if (!Array.isArray(value)) throw new ConfigError(`${what}.value: ${op} needs an array`);
      if (value.length === 0) return op === 'in' ? '1 = 0' : '1 = 1';
      return `${column} ${op === 'in' ? 'IN' : 'NOT IN'} (${value.map((v) => params.add(v)).join(', ')})`;
    }
    case 'eq':
    case 'ne':
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
    case 'like':
      if (value === undefined || value === null || Array.isArray(value)) throw new ConfigError(`${what}.value: ${op} needs a single value`);
      return `${column} ${COMPARISONS[op]} ${params.add(value)}`;
    default:
      throw new ConfigError(`${what}.op: unknown operator ${JSON.stringify(op)}`);
  }
}

/** All conditions joined with AND; undefined when there are none. */
export function renderFilter(conditions: readonly FilterCondition[], params: SqlParams, what: string): string | undefined {
  if (conditions.length === 0) return undefined;
  return conditions.map((c, i) => `(${renderCondition(c, params, `${what}[${i}]`)})`).join(' AND ');
}

export interface ChangeQuery {
  /** Quoted table name. */
  entity: string;
  /** Quoted watermark column, or the expression of a computed tracker (PostgreSQL `xmin`: postgres-xmin.ts). */
  watermark: string;
  /** A computed tracker is selected under this quoted name (the job's watermark field), as a column would be. */
  watermarkAs?: string;
  /** Quoted key columns (tie-breakers of the order). */
  keys: string[];
  filter: readonly FilterCondition[];
  softDelete?: FilterCondition;
  /** Inclusive upper bound: the column's maximum captured before reading (driver form). */
  upper: unknown;
  /** Exclusive upper bound: the source's settled horizon (driver form); undefined → none. */
  before?: unknown;
  /** Exclusive lower bound for the first page (driver form); undefined → none. */
  lower?: unknown;
  /** Keyset position: continue strictly after this (watermark, keys) tuple (driver form). */
  after?: { watermark: unknown; keys: unknown[] };
  /** Rows of the page; undefined → every row of the run (a stream). */
  limit?: number;
  /** Names the job in configuration errors, e.g. `job "j"`. */
  what: string;
}

/**
 * A page of changes: rows with watermark in (lower, upper] (or after the keyset position, up to
 * `upper`) matching the filter, ordered by (watermark, key), with the soft-delete flag as 1/0.
 */
export function buildChangeQuery(dialect: SqlDialect, q: ChangeQuery): { sql: string; params: unknown[] } {
  const params = new SqlParams(dialect);
  const flag = softDeleteFlag(q.softDelete, params, q.what);
  const where = [`${q.watermark} <= ${params.addRaw(q.upper)}`];
  if (q.before !== undefined) where.push(`${q.watermark} < ${params.addRaw(q.before)}`);
  if (q.after) {
    const tuple = [params.addRaw(q.after.watermark), ...q.after.keys.map((k) => params.addRaw(k))];
    where.push(`(${[q.watermark, ...q.keys].join(', ')}) > (${tuple.join(', ')})`);
  } else if (q.lower !== undefined) {
    where.push(`${q.watermark} > ${params.addRaw(q.lower)}`);
  }
  const filter = renderFilter(q.filter, params, `${q.what}: filter`);
  if (filter) where.push(filter);
  const sql =
    `SELECT *, ${flag} AS "${DELETED_FLAG}"${q.watermarkAs === undefined ? '' : `, ${q.watermark} AS ${q.watermarkAs}`} FROM ${q.entity} WHERE ${where.join(' AND ')} ` +
    `ORDER BY ${[q.watermark, ...q.keys].join(', ')}${q.limit === undefined ? '' : ` LIMIT ${Math.trunc(q.limit)}`}`;
  return { sql, params: params.values };
}

/** The soft-delete flag's expression: 1 for a row `softDelete` matches, else 0 (always 0 without a condition). */
export function softDeleteFlag(softDelete: FilterCondition | undefined, params: SqlParams, what: string): string {
  return softDelete ? `CASE WHEN ${renderCondition(softDelete, params, `${what}: softDelete`)} THEN 1 ELSE 0 END` : '0';
}

/** The watermark column's current maximum, as `upper`. */
export function buildUpperBoundQuery(entity: string, watermark: string): string {
  return `SELECT max(${watermark}) AS "upper" FROM ${entity}`;
}
