import { PermanentError } from '../../src/platform/errors';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue } from '../../src/model/queue-message';
import { quoteEntity, quoteIdentifier, type SqlDialect } from './dialect';

/** One statement of an upsert: its text and which record fields it binds, in placeholder order. */
interface PlannedStatement {
  readonly sql: string;
  readonly fields: readonly string[];
  /** For error messages, e.g. `update "customers"`. */
  readonly operation: string;
}

/** The SQL of upserting one shape of record (its field names) with one mapping. */
export interface UpsertPlan {
  /** The quoted table, for error messages. */
  readonly entity: string;
  /** `UPDATE … WHERE key … RETURNING`; none when every field is a key. */
  readonly update?: PlannedStatement;
  /** `INSERT … ON CONFLICT (key) DO UPDATE … RETURNING`. */
  readonly insert: PlannedStatement;
}

/** What a plan's text depends on (besides the dialect). */
interface PlanShape {
  readonly entity: string;
  readonly key: readonly string[];
  readonly returning: readonly string[];
  readonly names: readonly string[];
}

interface CachedPlan {
  readonly shape: PlanShape;
  readonly plan: UpsertPlan;
}

/** Default number of plans one target keeps. */
const DEFAULT_MAX_UPSERT_PLANS = 256;

/**
 * The upsert SQL per mapping and field set, built once: a target applies the same few shapes
 * millions of times, and building the text (quoting every identifier) cost more CPU per message
 * than anything else in the connector. Bounded: past `maxPlans` shapes the oldest is dropped.
 * Only valid plans are kept, so an invalid identifier is reported on every message that has it.
 */
export class UpsertPlans {
  private readonly plans = new Map<string, CachedPlan>();
  /** The plan used last: most messages have the shape of the one before, found without a key. */
  private last?: CachedPlan;

  /** @param maxPlans shapes kept (field sets × mappings). Default {@link DEFAULT_MAX_UPSERT_PLANS}. */
  constructor(
    private readonly dialect: SqlDialect,
    private readonly maxPlans = DEFAULT_MAX_UPSERT_PLANS,
  ) {}

  /** Plans currently kept (tests). */
  get size(): number {
    return this.plans.size;
  }

  /**
   * The plan for `record` (target key and fields merged, in that order) returning `returning`.
   * @throws ConfigError naming the mapping property when an identifier is not a plain SQL identifier.
   * @throws PermanentError when the record has no value for a target key field.
   */
  planFor(mapping: Mapping, record: Record<string, JsonValue>, returning: readonly string[]): UpsertPlan {
    const names = Object.keys(record);
    const shape: PlanShape = { entity: mapping.target.entity, key: mapping.target.key, returning, names };
    const found = this.find(shape);
    if (found) {
      requireKeyValues(found.entity, shape.key, record);
      return found;
    }
    const plan = buildPlan(this.dialect, mapping, record, names, returning);
    if (this.plans.size >= this.maxPlans) this.plans.delete(this.plans.keys().next().value as string);
    this.last = { shape: { ...shape, key: [...shape.key], returning: [...returning] }, plan };
    this.plans.set(cacheKey(shape), this.last);
    return plan;
  }

  private find(shape: PlanShape): UpsertPlan | undefined {
    if (this.last && sameShape(this.last.shape, shape)) return this.last.plan;
    const cached = this.plans.get(cacheKey(shape));
    // The key is not injective (a name may hold the separators): only an equal shape is a hit.
    if (!cached || !sameShape(cached.shape, shape)) return undefined;
    this.last = cached;
    return cached.plan;
  }
}

function cacheKey({ entity, key, returning, names }: PlanShape): string {
  return `${entity}\u0000${key.join('\u0001')}\u0000${returning.join('\u0001')}\u0000${names.join('\u0001')}`;
}

/**
 * Builds the statements, validating identifiers in the order the messages have always reported
 * them: the table, the key, a missing key value, the returned fields, then the other columns.
 */
function buildPlan(dialect: SqlDialect, mapping: Mapping, record: Record<string, JsonValue>, names: string[], returning: readonly string[]): UpsertPlan {
  const entity = quoteEntity(mapping.target.entity, dialect, `mapping "${mapping.name}": target.entity`);
  const keyFields = mapping.target.key;
  const keys = keyFields.map((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": target.key[${i}]`));
  requireKeyValues(entity, keyFields, record);
  const returningSql = ` RETURNING ${
    returning.length > 0 ? returning.map((f) => quoteIdentifier(f, `mapping "${mapping.name}": responseMapping.from`)).join(', ') : '1 AS "found"'
  }`;
  const column = (name: string) => quoteIdentifier(name, `mapping "${mapping.name}": target field`);
  const nonKeys = names.filter((name) => !keyFields.includes(name));
  const placeholders = (count: number, first = 1) => Array.from({ length: count }, (_, i) => dialect.placeholder(first + i));

  let update: PlannedStatement | undefined;
  if (nonKeys.length > 0) {
    const setValues = placeholders(nonKeys.length);
    const whereValues = placeholders(keys.length, nonKeys.length + 1);
    const set = nonKeys.map((name, i) => `${column(name)} = ${setValues[i]}`).join(', ');
    const where = keys.map((key, i) => `${key} = ${whereValues[i]}`).join(' AND ');
    update = { sql: `UPDATE ${entity} SET ${set} WHERE ${where}${returningSql}`, fields: [...nonKeys, ...keyFields], operation: `update ${entity}` };
  }

  const columns = names.map(column);
  const updates = columns.filter((c) => !keys.includes(c));
  // Updating a key to itself keeps RETURNING working when every column is a key.
  const set = (updates.length > 0 ? updates : keys).map((c) => `${c} = excluded.${c}`).join(', ');
  const values = placeholders(names.length).join(', ');
  const insert: PlannedStatement = {
    sql: `INSERT INTO ${entity} (${columns.join(', ')}) VALUES (${values}) ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${set}${returningSql}`,
    fields: names,
    operation: `upsert into ${entity}`,
  };
  return { entity, update, insert };
}

function requireKeyValues(entity: string, keyFields: readonly string[], record: Record<string, JsonValue>): void {
  for (const key of keyFields) {
    if (record[key] === undefined) throw new PermanentError(`message for ${entity} has no value for target key field "${key}"`);
  }
}

function sameShape(a: PlanShape, b: PlanShape): boolean {
  return a.entity === b.entity && sameStrings(a.key, b.key) && sameStrings(a.returning, b.returning) && sameStrings(a.names, b.names);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
