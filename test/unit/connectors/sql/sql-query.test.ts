import { quoteEntity, quoteIdentifier, SqlParams } from '../../../../connectors/sql/dialect';
import { postgresDialect } from '../../../../connectors/sql/postgres-dialect';
import { buildChangeQuery, renderFilter } from '../../../../connectors/sql/sql-query';
import { sqliteDialect } from '../../../../connectors/sql/sqlite-dialect';
import type { FilterCondition } from '../../../../src/model/job';

const pg = postgresDialect();

describe('identifiers', () => {
  it('quotes plain identifiers and rejects anything else', () => {
    expect(quoteIdentifier('Customer_No$', 'w')).toBe('"Customer_No$"');
    for (const bad of ['a"b', 'a b', '1a', '', 'x;drop table y']) {
      expect(() => quoteIdentifier(bad, 'job "j": filter[0].field')).toThrow(
        `job "j": filter[0].field: ${JSON.stringify(bad)} is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit)`,
      );
    }
  });

  it('qualifies table names with the default schema', () => {
    expect(quoteEntity('customers', postgresDialect('sales'), 'w')).toBe('"sales"."customers"');
    expect(quoteEntity('crm.customers', postgresDialect('sales'), 'w')).toBe('"crm"."customers"');
    expect(quoteEntity('customers', sqliteDialect, 'w')).toBe('"customers"');
    expect(() => quoteEntity('a.b.c', pg, 'w')).toThrow('w: "a.b.c" is not a table name (name or schema.name)');
  });
});

describe('renderFilter', () => {
  const conditions: FilterCondition[] = [
    { field: 'status', op: 'eq', value: 'open' },
    { field: 'status', op: 'ne', value: null },
    { field: 'amount', op: 'ge', value: 10 },
    { field: 'region', op: 'in', value: ['N', 'S'] },
    { field: 'region', op: 'notIn', value: [] },
    { field: 'name', op: 'like', value: "O'Brien%" },
    { field: 'deleted', op: 'isNull' },
    { field: 'active', op: 'eq', value: true },
  ];

  it('renders every operator with bound values on PostgreSQL', () => {
    const params = new SqlParams(pg);
    expect(renderFilter(conditions, params, 'job "j": filter')).toBe(
      '("status" = $1) AND ("status" IS NOT NULL) AND ("amount" >= $2) AND ("region" IN ($3, $4)) AND (1 = 1) AND ("name" LIKE $5) AND ("deleted" IS NULL) AND ("active" = $6)',
    );
    expect(params.values).toEqual(['open', 10, 'N', 'S', "O'Brien%", true]);
  });

  it('renders ? placeholders and booleans as 1/0 on SQLite', () => {
    const params = new SqlParams(sqliteDialect);
    expect(renderFilter([{ field: 'active', op: 'eq', value: false }, { field: 'x', op: 'in', value: [] }], params, 'f')).toBe('("active" = ?) AND (1 = 0)');
    expect(params.values).toEqual([0]);
    expect(renderFilter([], params, 'f')).toBeUndefined();
  });

  it('names the condition when a value does not fit the operator', () => {
    const params = new SqlParams(pg);
    expect(() => renderFilter([{ field: 'a', op: 'eq', value: 1 }, { field: 'b', op: 'in', value: 'x' }], params, 'job "j": filter')).toThrow(
      'job "j": filter[1].value: in needs an array',
    );
    expect(() => renderFilter([{ field: 'a', op: 'gt' }], params, 'job "j": filter')).toThrow('job "j": filter[0].value: gt needs a single value');
  });
});

describe('buildChangeQuery', () => {
  const base = { entity: '"orders"', watermark: '"modified"', keys: ['"id"'], filter: [], upper: 'U', limit: 2, what: 'job "j"' };

  it('reads the first page above the lower bound up to the captured upper bound', () => {
    expect(buildChangeQuery(pg, { ...base, lower: 'L', filter: [{ field: 'region', op: 'eq', value: 'N' }] })).toEqual({
      sql: 'SELECT *, 0 AS "__highwater_deleted" FROM "orders" WHERE "modified" <= $1 AND "modified" > $2 AND ("region" = $3) ORDER BY "modified", "id" LIMIT 2',
      params: ['U', 'L', 'N'],
    });
  });

  it('continues after a keyset position and flags soft-deleted rows', () => {
    const q = buildChangeQuery(sqliteDialect, {
      ...base,
      keys: ['"a"', '"b"'],
      softDelete: { field: 'deleted', op: 'eq', value: true },
      after: { watermark: 'W', keys: [1, 'x'] },
    });
    expect(q).toEqual({
      sql: 'SELECT *, CASE WHEN "deleted" = ? THEN 1 ELSE 0 END AS "__highwater_deleted" FROM "orders" WHERE "modified" <= ? AND ("modified", "a", "b") > (?, ?, ?) ORDER BY "modified", "a", "b" LIMIT 2',
      params: [1, 'U', 'W', 1, 'x'],
    });
  });
});
