import type { Clock } from '../../src/platform/clock';
import type { WatermarkType } from '../../src/model/watermark-value';
import type { SqlDatabase } from './dialect';

/**
 * How far a run may read: the settled horizon of a SQL source. A row whose change stamp lies
 * before it is in the table already, committed, and will not be joined by another row with a
 * stamp before it; a row at or after it may still be joined by one (the same second is not over,
 * a transaction that stamped rows has not committed), so the run leaves it to a later run, which
 * reads it from the watermark on. The watermark therefore never passes a point where a row can
 * still appear with a stamp at or below it, and nothing needs a lookback to be found.
 *
 * - **datetime / date** (time stamps): the source's own clock, minus the settle margin, cut to
 *   the whole second (to the day for dates): stamps of second or day resolution (SQLite's
 *   `datetime('now')`, `CURRENT_TIMESTAMP`) are only settled once their second or day is over.
 *   PostgreSQL moreover keeps it before the start of the oldest open transaction of another
 *   session: `now()` / `CURRENT_TIMESTAMP` stamp a row with the time its transaction began, and
 *   it becomes visible only at commit (the late-commit gap). MariaDB / MySQL likewise, from
 *   `information_schema.innodb_trx` (mysql-horizon.ts).
 * - **number** on PostgreSQL (a counter from a sequence): the maximum is read in a snapshot in
 *   which no other transaction is writing (`pg_current_snapshot()`): a transaction still open
 *   could hold a lower number than a committed one. While writers are busy the read is retried
 *   briefly; see {@link numberSnapshot} (MySQL: `mysqlNumberSnapshot`). SQLite has one writer
 *   at a time: its maximum is settled.
 */
export interface SettledHorizon {
  /** Canonical exclusive upper bound (datetime `…T…Z` or date `YYYY-MM-DD`). */
  before: string;
  /** An open transaction that holds the horizon back, for the run's log; absent when none. */
  heldBy?: { since: string; pid: number; application: string };
  /** PostgreSQL: sessions of other users whose transactions cannot be seen (missing `pg_read_all_stats`). */
  hiddenSessions?: number;
  /** What the horizon could not take into account (MySQL: open transactions the user cannot read), for the run's log. */
  blindSpot?: string;
}

/** The settle margin when the job sets none: a stamp taken this long before commit is still safe. */
export const DEFAULT_SETTLE_SECONDS = 1;

const PAD = '.0000000Z';

/**
 * The settled horizon of a time-stamped SQLite or PostgreSQL source, read from the database's own
 * clock (MariaDB / MySQL: `mysqlHorizon` in mysql-horizon.ts).
 * @throws what the database's query throws (classified).
 */
export async function settledHorizon(db: SqlDatabase, type: Exclude<WatermarkType, 'number' | 'string'>, settleSeconds: number): Promise<SettledHorizon> {
  return db.dialect.kind === 'sqlite' ? sqliteHorizon(db, type, settleSeconds) : postgresHorizon(db, type, settleSeconds);
}

async function sqliteHorizon(db: SqlDatabase, type: 'datetime' | 'date', settleSeconds: number): Promise<SettledHorizon> {
  // SQLite's 'now' is UTC; %S cuts the fraction (whole seconds).
  const sql = type === 'date' ? `SELECT date('now', ?) AS "before"` : `SELECT strftime('%Y-%m-%dT%H:%M:%S', 'now', ?) AS "before"`;
  const [row] = await db.query(sql, [`-${settleSeconds} seconds`], 'read the database clock');
  const before = String(row?.before);
  return { before: type === 'date' ? before : `${before}${PAD}` };
}

/**
 * Other sessions' transactions are read from `pg_stat_activity`; only client backends count
 * (autovacuum and walsenders write no business rows). A session of another role shows no
 * `state` without `pg_read_all_stats`: those are counted, not guessed at.
 */
async function postgresHorizon(db: SqlDatabase, type: 'datetime' | 'date', settleSeconds: number): Promise<SettledHorizon> {
  const [row] = await db.query(
    `WITH others AS (SELECT pid, xact_start, state, application_name FROM pg_stat_activity
       WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'),
     oldest AS (SELECT pid, xact_start, application_name FROM others WHERE xact_start IS NOT NULL ORDER BY xact_start LIMIT 1)
     SELECT to_char(date_trunc('second', clock_timestamp() - make_interval(secs => $1)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS "clock",
            (SELECT to_char(date_trunc('second', xact_start) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') FROM oldest) AS "oldest",
            (SELECT pid FROM oldest) AS "pid", (SELECT application_name FROM oldest) AS "application",
            (SELECT count(*) FROM others WHERE state IS NULL)::int AS "hidden"`,
    [settleSeconds],
    'read the database clock and its open transactions',
  );
  const clock = String(row?.clock);
  const oldest = typeof row?.oldest === 'string' ? row.oldest : undefined;
  // A transaction that began in second S may stamp S: the horizon is S itself (exclusive).
  const held = oldest !== undefined && oldest < clock;
  const time = held ? oldest : clock;
  const horizon: SettledHorizon = { before: type === 'date' ? time.slice(0, 10) : `${time}${PAD}` };
  if (held) horizon.heldBy = { since: `${oldest}Z`, pid: Number(row?.pid), application: String(row?.application ?? '') };
  const hidden = Number(row?.hidden ?? 0);
  if (hidden > 0) horizon.hiddenSessions = hidden;
  return horizon;
}

/** The column's maximum in a snapshot without other writers, or why there was none. */
export interface NumberSnapshot {
  /** The maximum (driver form), null for an empty column. */
  upper: unknown;
  /** True when writers were still busy after every try: the maximum is then not settled. */
  unsettled: boolean;
}

/** Tries of {@link numberSnapshot}, 50 ms apart: about 2 s in all. */
const SNAPSHOT_TRIES = 40;
const SNAPSHOT_PAUSE_MS = 50;

/**
 * PostgreSQL only: the maximum of a counter column read in one statement together with the
 * snapshot's in-progress transactions. With none in progress, every number at or below the
 * maximum is committed (a later transaction draws a higher one from the sequence). Ordinary
 * write transactions last milliseconds, so a quiet instant comes within the tries.
 */
export async function numberSnapshot(db: SqlDatabase, entity: string, column: string, clock: Pick<Clock, 'sleep'>): Promise<NumberSnapshot> {
  let upper: unknown = null;
  for (let attempt = 1; attempt <= SNAPSHOT_TRIES; attempt++) {
    const [row] = await db.query(
      `SELECT max(${column}) AS "upper", (SELECT count(*) FROM pg_snapshot_xip(pg_current_snapshot()))::int AS "writers" FROM ${entity}`,
      [],
      `read the maximum of ${column} in ${entity}`,
    );
    upper = row?.upper ?? null;
    if (Number(row?.writers ?? 0) === 0) return { upper, unsettled: false };
    if (attempt < SNAPSHOT_TRIES) await clock.sleep(SNAPSHOT_PAUSE_MS);
  }
  return { upper, unsettled: true };
}
