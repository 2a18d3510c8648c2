import type { SettingsProblem, SourceJobValidator } from '../base/registry';
import type { Job } from '../../src/model/job';
import { parseWatermarkType } from '../../src/model/watermark-value';
import type { SqlDatabase, SqlDialect } from './dialect';

/**
 * Change tracking by transaction on PostgreSQL: a job whose watermark is `{ type: number, field:
 * xmin }` tracks each row by the transaction that wrote its current version, not by a column the
 * application fills. A counter or time stamp the application takes in one transaction and writes
 * in a later one can commit below what a run already read, and no database state says such a row
 * is still to come; the writing transaction's id has no such gap: every transaction below the
 * snapshot's `xmin` has ended, so a run that reads only rows written below it never passes a row
 * that can still appear. An UPDATE writes a new row version with a new `xmin`, so it is read again;
 * a DELETE leaves nothing to read (use a soft delete, as with any watermark).
 *
 * The tracker is the 64-bit transaction id (`xid8`): the `xmin` system column holds only its low
 * 32 bits, widened by {@link widenXid} against the reading statement's own snapshot.
 */

/** The watermark field that selects tracking by transaction (PostgreSQL forbids a user column of this name). */
export const XMIN_FIELD = 'xmin';

/** What a row older than the widening window reads as: PostgreSQL's FrozenTransactionId, below every transaction id ever assigned. */
export const FROZEN_XID = 2n;

const EPOCH = 2n ** 32n;
const HALF = 2n ** 31n;

/**
 * The 64-bit transaction id of a row's 32-bit `xmin`, against `reference`: a 64-bit id at or
 * above every transaction whose rows the reading statement sees. The row's transaction lies
 * `back` ids before the reference, counted modulo 2^32 (the epoch of the reference, minus one
 * when the row's 32 bits lie at or above the reference's). PostgreSQL guarantees that an unfrozen
 * row's transaction lies less than 2^31 ids before the next one (it refuses new transactions
 * before wraparound), so a row 2^31 − 1 or more back is frozen, written so long ago that its
 * epoch cannot be known: it reads as {@link FROZEN_XID}, older than any watermark. The special
 * ids 0–2 (invalid, bootstrap, frozen before PostgreSQL 9.4) read so too, as does `back` 0.
 *
 * (The snapshot's `xmin` is no reference: rows of transactions between its `xmin` and `xmax`
 * that committed are visible, and their low 32 bits lie above its own.)
 */
export function widenXid(xid: bigint, reference: bigint): bigint {
  if (xid < 3n) return FROZEN_XID;
  const back = (((reference - xid) % EPOCH) + EPOCH) % EPOCH;
  if (back === 0n || back >= HALF - 1n) return FROZEN_XID;
  return reference - back;
}

/**
 * The reference of {@link XMIN_TRACKER_SQL}: the transaction's stable id, the one `age()` counts
 * back from (the next transaction id when the statement's transaction began to ask: at or above
 * the snapshot's `xmax`, so above every row it sees), in 64 bits: the snapshot's `xmax` plus the
 * age of its low 32 bits (a few ids at most). Read once per statement (an InitPlan).
 */
export const STABLE_XID_SQL = `(SELECT r + age((r % ${EPOCH})::text::xid) FROM (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS r) AS snapshot)`;

/**
 * A row's tracker in a query on its table, {@link widenXid} in SQL: `age(xmin)` is `back`
 * against {@link STABLE_XID_SQL} as a signed 32-bit number (no text conversion per row); 0 or
 * less (2^31 or more back), and 2^31 − 1 (the special ids), read as {@link FROZEN_XID}. A
 * `bigint` expression: xid8 epochs stay far below 2^31. The transaction's stable id is fixed by
 * its first `age()`: a statement must be the first of its transaction to ask, or rows committed
 * since would read as frozen. Every read here is a statement of its own, or the one query of a
 * stream (`SqlDatabase.stream`).
 */
export const XMIN_TRACKER_SQL = `(CASE WHEN age(xmin) <= 0 OR age(xmin) = ${HALF - 1n} THEN ${FROZEN_XID} ELSE ${STABLE_XID_SQL} - age(xmin) END)`;

/** Whether the job tracks changes by transaction: `field: xmin`, `type: number`, on PostgreSQL. */
function tracksXmin(dialect: Pick<SqlDialect, 'kind'>, job: Job): boolean {
  return dialect.kind === 'postgres' && job.watermark.field === XMIN_FIELD && parseWatermarkType(job.watermark.type) === 'number';
}

/**
 * The job's watermark as a SQL expression: the quoted column, or {@link XMIN_TRACKER_SQL}.
 * `computed`: the expression is no column `SELECT *` returns; select it as the watermark field.
 */
export function watermarkExpression(dialect: Pick<SqlDialect, 'kind'>, job: Job, quoted: string): { sql: string; computed: boolean } {
  return tracksXmin(dialect, job) ? { sql: XMIN_TRACKER_SQL, computed: true } : { sql: quoted, computed: false };
}

/** Where a run by transaction stops, and what holds it there. */
export interface XminHorizon {
  /** The newest settled transaction id (the snapshot's xmin minus one), canonical: the run's inclusive upper bound. */
  lastSettled: string;
  /** A transaction open longer than the settle margin that holds the horizon, for the run's log. */
  heldBy?: { since: string; pid: number; application: string };
}

/**
 * The settled horizon of a run by transaction: the `xmin` of the current snapshot, below which
 * every transaction has ended (committed or rolled back). Rows of the transactions at or above
 * it are left to a later run. The session holding it, when its transaction is open longer than
 * `settleSeconds`, is named (`pg_stat_activity.backend_xid`; a prepared transaction has none).
 * @throws what the database's query throws (classified).
 */
export async function xminHorizon(db: SqlDatabase, settleSeconds: number): Promise<XminHorizon> {
  const [row] = await db.query(
    `WITH snap AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin),
     holder AS (SELECT a.pid, a.application_name, a.xact_start FROM pg_stat_activity a, snap
       WHERE a.backend_xid IS NOT NULL AND a.backend_xid::text::bigint = snap.xmin % ${EPOCH}
         AND a.xact_start < now() - make_interval(secs => $1) LIMIT 1)
     SELECT (snap.xmin - 1)::text AS "lastSettled",
            (SELECT to_char(xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') FROM holder) AS "since",
            (SELECT pid FROM holder) AS "pid", (SELECT application_name FROM holder) AS "application"
     FROM snap`,
    [settleSeconds],
    'read the oldest open transaction',
  );
  const horizon: XminHorizon = { lastSettled: String(row?.lastSettled) };
  if (typeof row?.since === 'string') horizon.heldBy = { since: row.since, pid: Number(row.pid), application: String(row.application ?? '') };
  return horizon;
}

/**
 * A job that names `xmin` where it means no transaction tracking: on PostgreSQL with another
 * type than `number`, on another SQL engine at all. `engine` is the connection type.
 */
export function xminJobProblems(engine: 'sqlite' | 'postgres' | 'mysql'): SourceJobValidator {
  return (job: Job): SettingsProblem[] => {
    if (job.watermark.field !== XMIN_FIELD) return [];
    if (engine !== 'postgres') {
      return [{ path: 'watermark.field', message: `xmin (change tracking by transaction id) is PostgreSQL's: a ${engine} connection has none; use a column of the table` }];
    }
    if (parseWatermarkType(job.watermark.type) === 'number') return [];
    return [{ path: 'watermark.field', message: `xmin (change tracking by transaction id) needs watermark.type number, got ${JSON.stringify(job.watermark.type)}` }];
  };
}
