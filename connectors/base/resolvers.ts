import { PermanentError, TransitiveError } from '../../src/platform/errors';
import type { Resolver } from '../../src/model/mapping';
import { toText } from './operations';

/** Looks up related values in the source system (implemented by each source connector). */
export interface RelatedValueLookup {
  /**
   * The `returnField` value of a record of `entity` whose `matchField` equals `value`;
   * undefined when there is none (a found null is null).
   */
  lookupRelated(entity: string, matchField: string, returnField: string, value: unknown): Promise<unknown>;
}

/**
 * Caches lookups for one detection run, misses included, so each distinct value is looked up
 * once per run. A new run gets a new cache (related values may change between runs).
 */
export class ResolverCache implements RelatedValueLookup {
  private readonly cache = new Map<string, Promise<unknown>>();
  private lookups = 0;

  constructor(private readonly inner: RelatedValueLookup) {}

  /** How many lookups reached the source (for tests and diagnostics). */
  get sourceLookups(): number {
    return this.lookups;
  }

  lookupRelated(entity: string, matchField: string, returnField: string, value: unknown): Promise<unknown> {
    const key = JSON.stringify([entity, matchField, returnField, typeof value, toText(value)]);
    let found = this.cache.get(key);
    if (!found) {
      this.lookups++;
      found = this.inner.lookupRelated(entity, matchField, returnField, value);
      // A failed lookup (source down) must not be cached as an answer.
      found.catch(() => this.cache.delete(key));
      this.cache.set(key, found);
    }
    return found;
  }
}

/**
 * Replaces `value` by the related record's `returnField`. A null value resolves to null without a
 * lookup. When nothing matches, `onMissing` decides:
 * - `null` (default): the value becomes null;
 * - `transitive`: throws TransitiveError — detection of the job stops before this row, the
 *   watermark does not pass it, and the next run tries again (the row waits for its dependency);
 * - `error`: throws PermanentError — the row is wrong; detection of the job stops until it is fixed.
 * @param where names the mapped field in error messages, e.g. `field "accountId"`.
 */
export async function resolveValue(value: unknown, resolver: Resolver, lookup: RelatedValueLookup, where: string): Promise<unknown> {
  if (value === null || value === undefined) return null;
  const found = await lookup.lookupRelated(resolver.entity, resolver.matchField, resolver.returnField, value);
  if (found !== undefined) return found;
  const what = `${where}: no ${resolver.entity} record with ${resolver.matchField} = ${JSON.stringify(toText(value))}`;
  switch (resolver.onMissing ?? 'null') {
    case 'transitive':
      throw new TransitiveError(what, { details: { entity: resolver.entity, matchField: resolver.matchField } });
    case 'error':
      throw new PermanentError(what, { details: { entity: resolver.entity, matchField: resolver.matchField } });
    default:
      return null;
  }
}
