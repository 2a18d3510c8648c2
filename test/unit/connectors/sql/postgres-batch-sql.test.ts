import { deleteStatement, insertStatement, lockStatement, type PgBatchShape, rowsParams, updateStatement } from '../../../../connectors/sql/postgres-batch-sql';

/** The multi-row statements of a PostgreSQL batch: fixed parameters, typed casts, results by position. */
describe('postgres batch statements', () => {
  const shape: PgBatchShape = {
    entity: '"s"."orders"',
    keys: ['code'],
    columns: ['code', 'amount', 'note'],
    types: new Map([['code', 'text'], ['amount', 'numeric(12,2)'], ['note', 'character varying(20)'], ['doc_no', 'bigint']]),
    returning: ['doc_no'],
  };
  const withU = 'WITH u AS (SELECT x."__hw_i", x."code"::text AS "code", x."amount"::numeric(12,2) AS "amount", x."note"::character varying(20) AS "note" ' +
    'FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS x("__hw_i", "code", "amount", "note"))';

  it('binds one array per column however many rows', () => {
    const records = Array.from({ length: 1000 }, (_, i) => ({ code: `C${i}`, amount: i, note: null }));
    const params = rowsParams(records, shape.columns, (v) => (v === null ? null : String(v)));
    expect(params).toHaveLength(4);
    expect(params[0]).toEqual(records.map((_, i) => i));
    expect((params[2] as unknown[])[7]).toBe('7');
  });

  it('updates existing rows from the typed CTE, returning position and response fields', () => {
    expect(updateStatement(shape)).toBe(
      `${withU} UPDATE "s"."orders" AS t SET "amount" = u."amount", "note" = u."note" FROM u WHERE t."code" = u."code" RETURNING u."__hw_i" AS "__hw_i", t."doc_no" AS "doc_no"`,
    );
  });

  it('inserts in key order and joins RETURNING back to the positions by key', () => {
    const sql = insertStatement(shape, 'update');
    expect(sql).toContain('SELECT u."code", u."amount", u."note" FROM u ORDER BY u."code" ON CONFLICT ("code") DO UPDATE SET "amount" = excluded."amount", "note" = excluded."note"');
    expect(sql).toContain('RETURNING t."code" AS "__hw_k0", t."doc_no" AS "doc_no") SELECT u."__hw_i" AS "__hw_i", ins."doc_no" AS "doc_no" FROM ins JOIN u ON ins."__hw_k0" = u."code"');
    expect(insertStatement(shape, 'skip')).toContain('ON CONFLICT ("code") DO NOTHING RETURNING');
  });

  it('sets the key to itself when a record has only key columns (RETURNING still sees the row)', () => {
    expect(updateStatement({ ...shape, columns: ['code'] })).toContain('SET "code" = u."code" FROM u');
  });

  it('locks the existing rows in key order and reads their version; deletes by a join on the keys', () => {
    expect(lockStatement(shape, 'modified_at')).toMatch(/SELECT u\."__hw_i" AS "__hw_i", t\."modified_at" AS "__hw_v" FROM "s"\."orders" AS t JOIN u ON t\."code" = u\."code" ORDER BY t\."code" FOR UPDATE OF t$/);
    expect(deleteStatement({ ...shape, keys: ['a', 'b'], types: new Map([['a', 'int'], ['b', 'text']]) })).toMatch(/DELETE FROM "s"\."orders" AS t USING u WHERE t\."a" = u\."a" AND t\."b" = u\."b"$/);
  });
});
