import { postgresDialect } from '../../../../connectors/sql/postgres-dialect';
import { sqliteDialect } from '../../../../connectors/sql/sqlite-dialect';
import { UpsertPlans } from '../../../../connectors/sql/upsert-plan';
import { ConfigError, PermanentError } from '../../../../src/platform/errors';
import type { Mapping } from '../../../../src/model/mapping';
import type { JsonValue } from '../../../../src/model/queue-message';

const mapping = (name: string, entity: string, key: string[]): Mapping => ({ name, source: { entity: 's', key: ['id'] }, target: { entity, key }, fields: [] });
const orders = mapping('orders', 'sales_order', ['code']);
const record = (...names: string[]): Record<string, JsonValue> => Object.fromEntries(names.map((n) => [n, `${n}-value`]));

function thrown(call: () => unknown): Error {
  try {
    call();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('UpsertPlans', () => {
  it('builds UPDATE and INSERT with the dialect placeholders, binding non-key fields, then the key', () => {
    const plan = new UpsertPlans(postgresDialect('app')).planFor(orders, record('code', 'amount', 'note'), ['doc_no']);
    expect(plan.update).toEqual({
      sql: 'UPDATE "app"."sales_order" SET "amount" = $1, "note" = $2 WHERE "code" = $3 RETURNING "doc_no"',
      fields: ['amount', 'note', 'code'],
      operation: 'update "app"."sales_order"',
    });
    expect(plan.insert).toEqual({
      sql:
        'INSERT INTO "app"."sales_order" ("code", "amount", "note") VALUES ($1, $2, $3) ON CONFLICT ("code") ' +
        'DO UPDATE SET "amount" = excluded."amount", "note" = excluded."note" RETURNING "doc_no"',
      fields: ['code', 'amount', 'note'],
      operation: 'upsert into "app"."sales_order"',
    });
  });

  it('has no UPDATE when every field is a key, and then sets the key to itself', () => {
    const plan = new UpsertPlans(sqliteDialect).planFor(mapping('links', 'link', ['a', 'b']), record('a', 'b'), []);
    expect(plan.update).toBeUndefined();
    expect(plan.insert.sql).toBe('INSERT INTO "link" ("a", "b") VALUES (?, ?) ON CONFLICT ("a", "b") DO UPDATE SET "a" = excluded."a", "b" = excluded."b" RETURNING 1 AS "found"');
  });

  it('returns the same plan for the same shape, and another for another mapping, field set or returned list', () => {
    const plans = new UpsertPlans(sqliteDialect);
    const first = plans.planFor(orders, record('code', 'amount'), []);
    const contacts = plans.planFor(mapping('contacts', 'contact', ['email']), record('email', 'name'), []);
    expect(plans.planFor(orders, { code: 'other', amount: 2 }, [])).toBe(first);
    expect(plans.planFor(orders, record('code', 'note'), []).insert.fields).toEqual(['code', 'note']);
    expect(plans.planFor(orders, record('code', 'amount'), ['doc_no']).insert.sql).toMatch(/RETURNING "doc_no"$/);
    expect(plans.planFor(mapping('contacts', 'contact', ['email']), record('email', 'name'), [])).toBe(contacts);
    expect(plans.planFor(orders, record('code', 'amount'), [])).toBe(first);
    expect(plans.size).toBe(4);
  });

  it('keeps at most maxPlans shapes, dropping the oldest', () => {
    const plans = new UpsertPlans(sqliteDialect, 2);
    const first = plans.planFor(orders, record('code', 'a'), []);
    plans.planFor(orders, record('code', 'b'), []);
    plans.planFor(orders, record('code', 'c'), []);
    expect(plans.size).toBe(2);
    const again = plans.planFor(orders, record('code', 'a'), []);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(plans.size).toBe(2);
  });

  it('never takes a plan of another shape whose cache key is the same', () => {
    const plans = new UpsertPlans(sqliteDialect);
    plans.planFor(orders, record('code', 'a', 'b'), []);
    plans.planFor(orders, record('code', 'x'), []); // so that the next lookup goes through the keyed cache
    // Joined with the cache key's separator, these names spell the shape above.
    const err = thrown(() => plans.planFor(orders, record('code', 'a\u0001b'), []));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe('mapping "orders": target field: "a\\u0001b" is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit)');
  });

  it('keeps no plan for an invalid identifier: every message with it is reported', () => {
    const plans = new UpsertPlans(sqliteDialect);
    for (let i = 0; i < 2; i++) {
      expect(thrown(() => plans.planFor(orders, record('code', 'bad-name'), [])).message).toBe(
        'mapping "orders": target field: "bad-name" is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit)',
      );
      expect(thrown(() => plans.planFor(orders, record('code'), ['doc no'])).message).toMatch(/^mapping "orders": responseMapping.from: "doc no" is not/);
    }
    expect(plans.size).toBe(0);
  });

  it('checks the key value on every message, also when the shape is known', () => {
    const plans = new UpsertPlans(sqliteDialect);
    plans.planFor(orders, record('code', 'amount'), []);
    const err = thrown(() => plans.planFor(orders, { code: undefined as unknown as JsonValue, amount: 1 }, []));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe('message for "sales_order" has no value for target key field "code"');
  });

  it('reports problems in the order it always has: table, key, missing key value, returned fields, columns', () => {
    const plans = new UpsertPlans(sqliteDialect);
    const noKey = { amount: 1, 'bad-name': 2 };
    expect(thrown(() => plans.planFor(mapping('m', 'bad table', ['code']), noKey, [])).message).toMatch(/^mapping "m": target.entity: "bad table"/);
    expect(thrown(() => plans.planFor(mapping('m', 't', ['bad key']), noKey, [])).message).toMatch(/^mapping "m": target.key\[0\]: "bad key"/);
    expect(thrown(() => plans.planFor(mapping('m', 't', ['code']), noKey, ['bad returned']))).toBeInstanceOf(PermanentError);
    expect(thrown(() => plans.planFor(mapping('m', 't', ['code']), { code: 1, 'bad-name': 2 }, ['bad returned'])).message).toMatch(/^mapping "m": responseMapping.from/);
  });
});
