import { isItemError, type ItemOutcome } from '../../../connectors/base/target-batch';
import type { JsonValue } from '../../../src/model/queue-message';
import { applyGroup, type ContractContext, type ContractItem, expectRecords, type PreparedTarget } from './context';

/** The field no target of the contract has (a misspelt column or property). */
const MISSING_FIELD = 'no_such_field';

/** The entity (table, entity set) no target of the contract has: the case's entity with this suffix. */
const MISSING_ENTITY_SUFFIX = '_missing';

/**
 * How a group ended, as the processor tells a target-wide condition from an item's fault: a
 * rejection with a group error (not an item error), or every item failed with a ConfigError (a
 * `$batch` answers per operation) are both `{ targetWide: 'ConfigError' }`; anything else is
 * shown as it is (an item error would dead-letter or park each message).
 */
async function ending(run: Promise<ItemOutcome[]>): Promise<unknown> {
  try {
    const outcomes = await run;
    const names = outcomes.map((o) => (o.status === 'failed' ? String((o.error as { name?: unknown }).name) : o.status));
    return names.length > 0 && names.every((n) => n === 'ConfigError') ? { targetWide: 'ConfigError' } : { outcomes: names };
  } catch (error) {
    const name = String((error as { name?: unknown }).name);
    return isItemError(error) ? { rejectedWithItemError: name } : { targetWide: name };
  }
}

/**
 * A schema mismatch — the mapping names a table, entity set, column or property the target does
 * not have — is no message's fault: the group fails as a whole with a ConfigError, which pauses
 * the target (outage mode) until it is fixed, instead of dead-lettering or parking each message.
 * A 404 for one record stays that record's (the transitive and delete cases).
 */
export function schemaMismatchCases(ctx: ContractContext): void {
  ctx.caseIt([])('a missing table or entity set fails the whole group with a ConfigError (the target pauses), nothing written', async () => {
    const p = await ctx.prepare({ id: 'missing-entity', seed: [], uses: [] });
    try {
      const mapping = { ...p.mapping, target: { ...p.mapping.target, entity: `${p.mapping.target.entity}${MISSING_ENTITY_SUFFIX}` } };
      const result = await ending(applyGroup({ ...p, mapping }, [{ key: 1, label: 'one', qty: 1 }, { key: 2, label: 'two', qty: 2 }]));
      expect(result).toEqual({ targetWide: 'ConfigError' });
      await expectRecords(p, { 1: null, 2: null });
    } finally {
      await p.done();
    }
  });

  ctx.caseIt([])('a field the target does not have (column, property) fails the whole group with a ConfigError, nothing written', async () => {
    const p = await ctx.prepare({ id: 'missing-field', seed: [{ key: 1, label: 'old', qty: 1 }], uses: [] });
    try {
      const withField: PreparedTarget = { ...p, fieldsOf: (item: ContractItem): Record<string, JsonValue> => ({ ...p.fieldsOf(item), [MISSING_FIELD]: 'x' }) };
      const result = await ending(applyGroup(withField, [{ key: 1, label: 'new', qty: 10 }, { key: 2, label: 'two', qty: 2 }]));
      expect(result).toEqual({ targetWide: 'ConfigError' });
      await expectRecords(p, { 1: { label: 'old', qty: 1 }, 2: null });
    } finally {
      await p.done();
    }
  });
}
