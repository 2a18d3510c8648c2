import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams, type SqlRow } from './dialect';
import { OUTBOX_COLUMN_DEFAULTS, type OutboxColumnName, type OutboxSettings } from './outbox-settings';

/**
 * What differs per database in reading an outbox: how a batch of rows is claimed so that two
 * readers at once never get the same free row, and how processed rows are deleted in batches.
 * Marking and setting aside are plain SQL every database shares (outbox-store.ts).
 */
export interface OutboxDialect {
  /**
   * Claims up to `limit` free rows (not processed, not set aside, never claimed or claimed before
   * `claimedBefore`), oldest id first, writing `now` into their claim column, and returns them.
   * Atomic per row: a row claimed by a concurrent call is not returned by this one.
   * @throws what the database throws, classified.
   */
  claim(db: SqlDatabase, table: OutboxTable, request: ClaimRequest): Promise<SqlRow[]>;
  /**
   * Deletes up to `limit` processed rows whose processed time is before `before` (as `ClaimRequest.now`).
   * @returns how many were deleted.
   * @throws what the database throws, classified.
   */
  purge(db: SqlDatabase, table: OutboxTable, before: string, limit: number): Promise<number>;
  /**
   * A time (ISO 8601 UTC) as a parameter the claim, processed and retention columns compare and
   * store correctly. Absent: the ISO text itself (SQLite text, PostgreSQL timestamptz).
   */
  timeParameter?(iso: string): unknown;
}

export interface ClaimRequest {
  /** Aggregate type to claim (the mapping's source entity) when the table has a type column. */
  type?: string;
  limit: number;
  /** Written into the claim column (ISO 8601 UTC, or what {@link OutboxDialect.timeParameter} made of it). */
  now: string;
  /** Rows claimed before this are free again: their reader's lease ran out. As `now`. */
  claimedBefore: string;
}

/** The outbox table with every name validated and quoted, and the raw column names rows come back with. */
export interface OutboxTable {
  /** Quoted (schema-qualified on PostgreSQL when the connection has a schema). */
  readonly name: string;
  /** Quoted column names. */
  readonly quoted: Readonly<Record<OutboxColumnName, string>> & { readonly type?: string };
  /** Column names as rows carry them. */
  readonly raw: Readonly<Record<OutboxColumnName, string>> & { readonly type?: string };
}

/**
 * The table named by the settings.
 * @throws ConfigError naming the setting when a name is not a plain SQL identifier.
 */
export function outboxTable(settings: OutboxSettings, db: SqlDatabase, connectionName: string): OutboxTable {
  const where = `connection "${connectionName}": settings.outbox`;
  const raw = { ...OUTBOX_COLUMN_DEFAULTS, ...settings.columns } as OutboxTable['raw'];
  const quoted = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, quoteIdentifier(v as string, `${where}.columns.${k}`)])) as OutboxTable['quoted'];
  return { name: quoteEntity(settings.table, db.dialect, `${where}.table`), quoted, raw };
}

/**
 * `WHERE …` of the free rows: the condition every dialect's claim shares. Parameters are added to
 * `params` in the order they appear.
 */
export function freeRowsCondition(table: OutboxTable, params: SqlParams, request: Omit<ClaimRequest, 'limit' | 'now'>): string {
  const c = table.quoted;
  // In text order: `?` placeholders are positional.
  const free = `${c.processedAt} IS NULL AND ${c.deadReason} IS NULL AND (${c.claimedAt} IS NULL OR ${c.claimedAt} < ${params.add(request.claimedBefore)})`;
  return c.type !== undefined && request.type !== undefined ? `${free} AND ${c.type} = ${params.add(request.type)}` : free;
}

/** `SELECT id … ORDER BY id LIMIT n` of free rows, for the dialects that claim by a subquery. */
export function freeIdsQuery(table: OutboxTable, params: SqlParams, request: ClaimRequest, lock = ''): string {
  const c = table.quoted;
  const where = freeRowsCondition(table, params, request);
  return `SELECT ${c.id} FROM ${table.name} WHERE ${where} ORDER BY ${c.id} LIMIT ${params.add(request.limit)}${lock}`;
}

/** `claim` as one `UPDATE … WHERE id IN (…) RETURNING *` (SQLite, PostgreSQL): the statement is the atomic unit. */
export async function claimByUpdate(db: SqlDatabase, table: OutboxTable, request: ClaimRequest, lock: string): Promise<SqlRow[]> {
  const params = new SqlParams(db.dialect);
  const c = table.quoted;
  const now = params.add(request.now);
  const ids = freeIdsQuery(table, params, request, lock);
  const sql = `UPDATE ${table.name} SET ${c.claimedAt} = ${now} WHERE ${c.id} IN (${ids}) RETURNING *`;
  const rows = await db.query(sql, params.values, `claim rows of the outbox ${table.name}`);
  // RETURNING gives no order: the ids order the changes.
  return rows.sort((a, b) => compareIds(a[table.raw.id], b[table.raw.id]));
}

/** Ids as the drivers return them (number, bigint, or text of a bigint), compared exactly. */
function compareIds(a: unknown, b: unknown): number {
  const x = BigInt(a as string | number | bigint);
  const y = BigInt(b as string | number | bigint);
  return x < y ? -1 : x > y ? 1 : 0;
}
