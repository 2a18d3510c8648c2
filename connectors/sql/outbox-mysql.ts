import { type SqlDatabase, SqlParams, type SqlTransaction } from './dialect';
import { freeIdsQuery, type OutboxDialect, type OutboxTable } from './outbox-dialect';
import { ConfigError } from '../../src/platform/errors';

/**
 * MySQL 8 and MariaDB 10.6+: neither updates with `RETURNING` nor limits a subquery of the table
 * being updated, so a claim is one transaction — lock the free ids with `FOR UPDATE SKIP LOCKED`
 * (concurrent readers pass over each other's rows), stamp them, read them — and so is a
 * retention batch. Names are double-quoted as everywhere else: the connection runs with
 * `ANSI_QUOTES`. Times go as `YYYY-MM-DD HH:MM:SS.fff` (UTC), which `DATETIME(3|6)` columns take
 * without a zone and compare correctly.
 */
export const mysqlOutboxDialect: OutboxDialect = {
  async claim(db, table, request) {
    return inTransaction(db, `claim rows of the outbox ${table.name}`, async (tx) => {
      const ids = await lockFree(tx, db, table, (params) => freeIdsQuery(table, params, request, ' FOR UPDATE SKIP LOCKED'));
      if (ids.length === 0) return [];
      const stamp = new SqlParams(db.dialect);
      const now = stamp.add(request.now);
      const list = ids.map((id) => stamp.addRaw(id)).join(', ');
      await tx.query(`UPDATE ${table.name} SET ${table.quoted.claimedAt} = ${now} WHERE ${table.quoted.id} IN (${list})`, stamp.values, `claim rows of the outbox ${table.name}`);
      const read = new SqlParams(db.dialect);
      const again = ids.map((id) => read.addRaw(id)).join(', ');
      return tx.query(`SELECT * FROM ${table.name} WHERE ${table.quoted.id} IN (${again}) ORDER BY ${table.quoted.id}`, read.values, `read claimed rows of the outbox ${table.name}`);
    });
  },

  async purge(db, table, before, limit) {
    return inTransaction(db, `delete processed rows of the outbox ${table.name}`, async (tx) => {
      const c = table.quoted;
      const ids = await lockFree(tx, db, table, (params) =>
        `SELECT ${c.id} FROM ${table.name} WHERE ${c.processedAt} IS NOT NULL AND ${c.processedAt} < ${params.add(before)} ORDER BY ${c.id} LIMIT ${params.add(limit)} FOR UPDATE SKIP LOCKED`,
      );
      if (ids.length === 0) return 0;
      const params = new SqlParams(db.dialect);
      await tx.query(`DELETE FROM ${table.name} WHERE ${c.id} IN (${ids.map((id) => params.addRaw(id)).join(', ')})`, params.values, `delete processed rows of the outbox ${table.name}`);
      return ids.length;
    });
  },

  timeParameter: (iso) => iso.replace('T', ' ').replace(/Z$/, ''),
};

/** The ids a locking query selects. */
async function lockFree(tx: SqlTransaction, db: SqlDatabase, table: OutboxTable, query: (params: SqlParams) => string): Promise<unknown[]> {
  const params = new SqlParams(db.dialect);
  const sql = query(params);
  const rows = await tx.query(sql, params.values, `lock free rows of the outbox ${table.name}`);
  return rows.map((row) => row[table.raw.id]);
}

/** @throws ConfigError when the database runs no transactions (a programming error of its adapter). */
function inTransaction<T>(db: SqlDatabase, operation: string, work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  if (!db.transaction) throw new ConfigError(`${operation}: this database adapter runs no transactions, which an outbox on MySQL or MariaDB needs`);
  return db.transaction(work, operation);
}
