import { SqlParams } from './dialect';
import { claimByUpdate, type OutboxDialect } from './outbox-dialect';

/**
 * PostgreSQL: the free rows are locked with `FOR UPDATE SKIP LOCKED` inside the claiming
 * `UPDATE`, so concurrent readers pass over each other's rows instead of waiting on them; a row
 * claimed and committed meanwhile is checked again under its lock and no longer free.
 */
export const postgresOutboxDialect: OutboxDialect = {
  claim: (db, table, request) => claimByUpdate(db, table, request, ' FOR UPDATE SKIP LOCKED'),
  async purge(db, table, before, limit) {
    const params = new SqlParams(db.dialect);
    const c = table.quoted;
    const sql =
      `DELETE FROM ${table.name} WHERE ${c.id} IN (SELECT ${c.id} FROM ${table.name} ` +
      `WHERE ${c.processedAt} IS NOT NULL AND ${c.processedAt} < ${params.add(before)} ORDER BY ${c.id} LIMIT ${params.add(limit)} FOR UPDATE SKIP LOCKED) RETURNING ${c.id}`;
    return (await db.query(sql, params.values, `delete processed rows of the outbox ${table.name}`)).length;
  },
};
