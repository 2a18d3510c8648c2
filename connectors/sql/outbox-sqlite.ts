import { SqlParams } from './dialect';
import { claimByUpdate, type OutboxDialect } from './outbox-dialect';

/**
 * SQLite has one writer at a time: a single `UPDATE … RETURNING` claims its rows before any other
 * connection (another host's, another process's) can write, so two readers never share a row.
 */
export const sqliteOutboxDialect: OutboxDialect = {
  claim: (db, table, request) => claimByUpdate(db, table, request, ''),
  async purge(db, table, before, limit) {
    const params = new SqlParams(db.dialect);
    const c = table.quoted;
    const sql =
      `DELETE FROM ${table.name} WHERE ${c.id} IN (SELECT ${c.id} FROM ${table.name} ` +
      `WHERE ${c.processedAt} IS NOT NULL AND ${c.processedAt} < ${params.add(before)} ORDER BY ${c.id} LIMIT ${params.add(limit)}) RETURNING ${c.id}`;
    return (await db.query(sql, params.values, `delete processed rows of the outbox ${table.name}`)).length;
  },
};
