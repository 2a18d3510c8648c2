import { type RelatedValueLookup, ResolverCache, resolveValue } from '../../../../connectors/base/resolvers';
import type { Resolver } from '../../../../src/model/mapping';

const resolver: Resolver = { entity: 'account', matchField: 'number', returnField: 'id' };
const where = 'mapping "m": field "accountId"';

function lookupOf(values: Record<string, unknown>): RelatedValueLookup & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    async lookupRelated(_entity, _match, _return, value) {
      calls.push(value);
      return values[String(value)];
    },
  };
}

describe('resolveValue', () => {
  const lookup = lookupOf({ A1: 'id-1', A2: null });

  it('returns the related value, a found null as null, and null for a null value without a lookup', async () => {
    await expect(resolveValue('A1', resolver, lookup, where)).resolves.toBe('id-1');
    await expect(resolveValue('A2', resolver, lookup, where)).resolves.toBeNull();
    const before = lookup.calls.length;
    await expect(resolveValue(null, resolver, lookup, where)).resolves.toBeNull();
    expect(lookup.calls.length).toBe(before);
  });

  it('handles a missing related record by onMissing', async () => {
    await expect(resolveValue('A9', resolver, lookup, where)).resolves.toBeNull();
    await expect(resolveValue('A9', { ...resolver, onMissing: 'null' }, lookup, where)).resolves.toBeNull();
    await expect(resolveValue('A9', { ...resolver, onMissing: 'transitive' }, lookup, where)).rejects.toMatchObject({
      name: 'TransitiveError', message: 'mapping "m": field "accountId": no account record with number = "A9"',
    });
    await expect(resolveValue('A9', { ...resolver, onMissing: 'error' }, lookup, where)).rejects.toMatchObject({
      name: 'PermanentError', message: 'mapping "m": field "accountId": no account record with number = "A9"',
    });
  });
});

describe('ResolverCache', () => {
  it('caches answers and misses per value, keeping 1 and "1" apart', async () => {
    const inner = lookupOf({ '1': 'one' });
    const cache = new ResolverCache(inner);
    const answers = await Promise.all([1, 1, '1', 2, 2].map((v) => cache.lookupRelated('t', 'm', 'r', v)));
    expect(answers).toEqual(['one', 'one', 'one', undefined, undefined]);
    expect(inner.calls).toEqual([1, '1', 2]);
    expect(cache.sourceLookups).toBe(3);
  });

  it('does not cache a failed lookup', async () => {
    let fail = true;
    const cache = new ResolverCache({
      async lookupRelated() {
        if (fail) throw new Error('source down');
        return 'ok';
      },
    });
    await expect(cache.lookupRelated('t', 'm', 'r', 'x')).rejects.toThrow('source down');
    fail = false;
    await expect(cache.lookupRelated('t', 'm', 'r', 'x')).resolves.toBe('ok');
    expect(cache.sourceLookups).toBe(2);
  });
});
