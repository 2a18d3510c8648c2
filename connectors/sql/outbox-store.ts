import { type SqlDatabase, SqlParams, type SqlRow } from './dialect';
import { freeRowsCondition, type OutboxDialect, type OutboxTable } from './outbox-dialect';
import { RETENTION_BATCH, RETENTION_STATEMENTS_PER_RUN } from './outbox-settings';

/** Ids per marking statement (well under every database's parameter limit). */
const IDS_PER_STATEMENT = 500;
/** A reason kept in the table is cut here; the log keeps it whole. */
const MAX_REASON_LENGTH = 1000;

/**
 * The statements on one outbox table: claiming (the dialect's), looking without claiming,
 * marking processed, setting aside and the retention. Every method throws what the database
 * throws, classified by the connection's error table.
 */
export class OutboxStore {
  constructor(
    private readonly db: SqlDatabase,
    readonly table: OutboxTable,
    private readonly dialect: OutboxDialect,
  ) {}

  /** See {@link OutboxDialect.claim}. */
  claim(type: string | undefined, limit: number, now: Date, leaseMs: number): Promise<SqlRow[]> {
    const claimedBefore = this.time(new Date(now.getTime() - leaseMs));
    return this.dialect.claim(this.db, this.table, { ...(type !== undefined ? { type } : {}), limit, now: this.time(now), claimedBefore });
  }

  /** Free rows after id `after` (null: from the start), claiming nothing: a dry run's look. */
  peek(type: string | undefined, limit: number, after: unknown, now: Date, leaseMs: number): Promise<SqlRow[]> {
    const params = new SqlParams(this.db.dialect);
    const c = this.table.quoted;
    const claimedBefore = this.time(new Date(now.getTime() - leaseMs));
    const where = freeRowsCondition(this.table, params, { ...(type !== undefined ? { type } : {}), claimedBefore });
    const from = after === null ? '' : ` AND ${c.id} > ${params.add(after)}`;
    const sql = `SELECT * FROM ${this.table.name} WHERE ${where}${from} ORDER BY ${c.id} LIMIT ${params.add(limit)}`;
    return this.db.query(sql, params.values, `read the outbox ${this.table.name}`);
  }

  /** Marks the rows processed at `now` (a row marked before keeps its time). */
  async markProcessed(ids: readonly unknown[], now: Date): Promise<void> {
    const c = this.table.quoted;
    for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT) {
      const params = new SqlParams(this.db.dialect);
      const at = params.addRaw(this.time(now));
      const list = ids.slice(start, start + IDS_PER_STATEMENT).map((id) => params.addRaw(id)).join(', ');
      const sql = `UPDATE ${this.table.name} SET ${c.processedAt} = ${at} WHERE ${c.id} IN (${list}) AND ${c.processedAt} IS NULL`;
      await this.db.query(sql, params.values, `mark rows of the outbox ${this.table.name} processed`);
    }
  }

  /** Sets a row aside with its reason: no reader claims it again until an operator clears the reason. */
  async setAside(id: unknown, reason: string): Promise<void> {
    const params = new SqlParams(this.db.dialect);
    const c = this.table.quoted;
    const text = reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
    const sql = `UPDATE ${this.table.name} SET ${c.deadReason} = ${params.add(text)}, ${c.claimedAt} = NULL WHERE ${c.id} = ${params.addRaw(id)}`;
    await this.db.query(sql, params.values, `set a row of the outbox ${this.table.name} aside`);
  }

  /**
   * Deletes processed rows older than `before`, a batch at a time, at most
   * {@link RETENTION_STATEMENTS_PER_RUN} batches.
   * @returns how many were deleted.
   */
  async purge(before: Date): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < RETENTION_STATEMENTS_PER_RUN; i++) {
      const n = await this.dialect.purge(this.db, this.table, this.time(before), RETENTION_BATCH);
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    return deleted;
  }

  /** A time as the dialect binds it (see {@link OutboxDialect.timeParameter}). */
  private time(at: Date): string {
    const iso = at.toISOString();
    return (this.dialect.timeParameter?.(iso) ?? iso) as string;
  }
}
