import type { Clock } from '../../src/platform/clock';
import type { SqlDatabase } from './dialect';
import type { NumberSnapshot, SettledHorizon } from './settled-horizon';

/**
 * The settled horizon and counter snapshot on MariaDB / MySQL (see settled-horizon.ts for what
 * they promise). Open transactions are read from `information_schema.innodb_trx`, which needs
 * the PROCESS privilege; without it the horizon is the clock alone, and the run says so.
 *
 * Two things differ from PostgreSQL. `NOW()` / `CURRENT_TIMESTAMP` / `ON UPDATE
 * CURRENT_TIMESTAMP` stamp the time the *statement* began, and an InnoDB transaction is entered
 * in `innodb_trx` only when it first touches a table, a moment after its first statement began:
 * so the settle margin is taken off the oldest open transaction's start too, not only off the
 * clock. And `innodb_trx` is a copy the server refreshes at most every 0.1 s: a transaction
 * younger than that may be missing, which the settle margin (default 1 s) covers for time stamps,
 * and a pause longer than the refresh covers for counters (see {@link mysqlNumberSnapshot}).
 * `trx_started` is in the server's system time zone; it is converted to UTC.
 *
 * A statement can stamp rows before its transaction is listed at all: an INSERT that waits for a
 * lock (or a table's metadata lock) has taken its `NOW()` already. So the start of every running
 * statement of another session (`information_schema.PROCESSLIST`, whole seconds, one added to be
 * on the safe side) holds the horizon back like an open transaction.
 */

const PAD = '.0000000Z';
/** The error number of a missing privilege (PROCESS for innodb_trx). */
const NO_PRIVILEGE = '1227';
const CLOCK = `DATE_FORMAT(UTC_TIMESTAMP(6) - INTERVAL ? SECOND, '%Y-%m-%dT%H:%i:%s')`;
const OTHERS = 'FROM information_schema.innodb_trx t WHERE t.trx_mysql_thread_id <> CONNECTION_ID()';

/** What the run tells when the open transactions cannot be read. */
const MYSQL_HIDDEN_TRANSACTIONS =
  "the connection's user cannot read information_schema.innodb_trx (grant it PROCESS): rows that open transactions commit late could be missed";

const isMissingPrivilege = (err: unknown) => (err as { details?: { code?: unknown } } | undefined)?.details?.code === NO_PRIVILEGE;

/** The settled horizon from the server's clock and its oldest open transaction of another session. */
export async function mysqlHorizon(db: SqlDatabase, type: 'datetime' | 'date', settleSeconds: number): Promise<SettledHorizon> {
  let row: Record<string, unknown> | undefined;
  let hidden = false;
  try {
    [row] = await db.query(
      `SELECT c."clock", o."oldest", o."pid", (SELECT CONCAT(p.USER, '@', p.HOST) FROM information_schema.PROCESSLIST p WHERE p.ID = o."pid") AS "who" ` +
        `FROM (SELECT ${CLOCK} AS "clock") c LEFT JOIN (` +
        `SELECT DATE_FORMAT(x."started" - INTERVAL ? SECOND, '%Y-%m-%dT%H:%i:%s') AS "oldest", x."pid" FROM (` +
        `SELECT CONVERT_TZ(t.trx_started, 'SYSTEM', '+00:00') AS "started", t.trx_mysql_thread_id AS "pid" ${OTHERS} UNION ALL ` +
        `SELECT UTC_TIMESTAMP() - INTERVAL (p.TIME + 1) SECOND, p.ID FROM information_schema.PROCESSLIST p WHERE p.ID <> CONNECTION_ID() AND p.COMMAND = 'Query'` +
        `) x ORDER BY x."started" LIMIT 1) o ON 1 = 1`,
      [settleSeconds, settleSeconds],
      'read the database clock and its open transactions',
    );
  } catch (err) {
    if (!isMissingPrivilege(err)) throw err;
    hidden = true;
    [row] = await db.query(`SELECT ${CLOCK} AS "clock"`, [settleSeconds], 'read the database clock');
  }
  const clock = String(row?.clock);
  const oldest = typeof row?.oldest === 'string' ? row.oldest : undefined;
  const held = oldest !== undefined && oldest < clock;
  const time = held ? oldest : clock;
  const horizon: SettledHorizon = { before: type === 'date' ? time.slice(0, 10) : `${time}${PAD}` };
  // MySQL sessions have no application name: the user and client host stand for it.
  if (held) horizon.heldBy = { since: `${oldest}Z`, pid: Number(row?.pid), application: typeof row?.who === 'string' ? row.who : '' };
  if (hidden) horizon.blindSpot = MYSQL_HIDDEN_TRANSACTIONS;
  return horizon;
}

/** Pause between reading the maximum and the open transactions: longer than innodb_trx's 0.1 s refresh. */
const REFRESH_PAUSE_MS = 150;
/** Tries of {@link mysqlNumberSnapshot}: about 2 s in all. */
const SNAPSHOT_TRIES = 12;

/**
 * The maximum of a counter column (AUTO_INCREMENT) once no transaction that was open when it was
 * read is open still. AUTO_INCREMENT hands out numbers in order, so a transaction that may still
 * commit a number below the maximum began before the maximum was read; when, one refresh of
 * `innodb_trx` later, none of those is open, every number at or below the maximum is committed
 * or rolled back, and the change query, which runs after, sees them.
 */
export async function mysqlNumberSnapshot(db: SqlDatabase, entity: string, column: string, clock: Pick<Clock, 'sleep'>): Promise<NumberSnapshot & { blindSpot?: string }> {
  let upper: unknown = null;
  for (let attempt = 1; attempt <= SNAPSHOT_TRIES; attempt++) {
    const [read] = await db.query(`SELECT max(${column}) AS "upper", NOW() AS "at" FROM ${entity}`, [], `read the maximum of ${column} in ${entity}`);
    upper = read?.upper ?? null;
    await clock.sleep(REFRESH_PAUSE_MS);
    let open: number;
    try {
      // trx_started has whole seconds: a transaction of the same second counts (the safe side).
      const [count] = await db.query(
        `SELECT count(*) AS "open" ${OTHERS} AND CONVERT_TZ(t.trx_started, 'SYSTEM', '+00:00') <= ?`,
        [read?.at],
        'read the open transactions',
      );
      open = Number(count?.open ?? 0);
    } catch (err) {
      if (!isMissingPrivilege(err)) throw err;
      return { upper, unsettled: false, blindSpot: MYSQL_HIDDEN_TRANSACTIONS };
    }
    if (open === 0) return { upper, unsettled: false };
  }
  return { upper, unsettled: true };
}
