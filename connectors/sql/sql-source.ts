import { changePage, type RowChange, serializeRows } from '../base/change-page';
import { ConnectorBase, canonicalChangeTracker } from '../base/connector-base';
import { type RelatedValueLookup, ResolverCache } from '../base/resolvers';
import type { CurrentTrackers, RetrieveOptions, SourceConnector, SourcePage } from '../base/source-connector';
import type { Clock } from '../../src/platform/clock';
import { DEFAULT_PAGE_SIZE, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { parseWatermarkType, WatermarkValue } from '../../src/model/watermark-value';
import { decodeCursor, encodeCursor, lookbackLowerBound, type RunPosition } from './change-window';
import { quoteEntity, quoteIdentifier, type SqlDatabase, SqlParams, type SqlRow } from './dialect';
import { readCurrentTrackers } from './sql-current-trackers';
import { readSqlByKeys } from './sql-read-by-keys';
import { buildChangeQuery, buildUpperBoundQuery } from './sql-query';
import { sqlRowChange } from './sql-row-change';
import { inSqliteWindow, openSqliteDatetimeWindow } from './sqlite-datetime-window';
import { futureStampWarning } from '../base/time-horizon';
import { DEFAULT_SETTLE_SECONDS, numberSnapshot, type SettledHorizon, settledHorizon } from './settled-horizon';
import { mysqlHorizon, mysqlNumberSnapshot } from './mysql-horizon';
import { watermarkExpression, xminHorizon } from './postgres-xmin';

/** The datetime type's default watermark: nothing read yet, so no lower bound. */
const INITIAL_DATETIME = '0001-01-01T00:00:00.0000000Z';

/**
 * Detects changes in one SQL table (the mapping's source entity) by its watermark column.
 *
 * A run first captures the column's maximum as its upper bound and, for time stamps, the
 * source's settled horizon (settled-horizon.ts), then reads rows with
 * `lower < watermark <= upper` and `watermark < horizon`, ordered by (watermark, key),
 * keyset-paged by that pair. Rows that change while the run reads get a watermark beyond the
 * bounds and are read by the next run; rows at or after the horizon (their second is not over,
 * a transaction that stamped them is still open) are left to the next run too, so the watermark
 * never passes a row that can still appear. Equal watermarks across a page boundary are
 * continued by key, so none is read twice. `job.lookbackSeconds` moves the lower bound back
 * (clock skew of application-set stamps, late replicas). A tombstone table is just a job with
 * action `Delete`; `job.softDelete` turns matching rows into `Delete` messages. Rows whose
 * watermark column is NULL are never detected. On PostgreSQL, `watermark: { type: number, field:
 * xmin }` tracks rows by the transaction that wrote them instead (postgres-xmin.ts): the run then
 * reads up to the newest transaction below its snapshot's `xmin`.
 */
export class SqlSource extends ConnectorBase implements SourceConnector, RelatedValueLookup {
  constructor(
    private readonly db: SqlDatabase,
    /** Time of detection (`detectedAt`) and the pauses of a PostgreSQL counter's snapshot. */
    private readonly clock: Pick<Clock, 'now' | 'sleep'>,
    /** Where a horizon held back by an open transaction, or an unsettled counter, is told. Default: nowhere. */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    super();
  }

  async *retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options: RetrieveOptions = {}): AsyncIterable<SourcePage> {
    const { dialect } = this.db;
    const what = `job "${job.name}"`;
    const entity = quoteEntity(mapping.source.entity, dialect, `mapping "${mapping.name}": source.entity`);
    const quoted = quoteIdentifier(job.watermark.field, `${what}: watermark.field`);
    // PostgreSQL `xmin` (postgres-xmin.ts): the row's transaction id, a computed tracker.
    const { sql: column, computed } = watermarkExpression(dialect, job, quoted);
    const keys = mapping.source.key.map((k, i) => quoteIdentifier(k, `mapping "${mapping.name}": source.key[${i}]`));
    const pageSize = options.pageSize ?? job.pageSize ?? DEFAULT_PAGE_SIZE;
    const type = parseWatermarkType(job.watermark.type);

    let position: RunPosition;
    let lower: unknown;
    const columnWhat = `${what}: watermark field "${job.watermark.field}"`;
    const settle = job.settleSeconds ?? DEFAULT_SETTLE_SECONDS;
    if (options.cursor) {
      position = decodeCursor(options.cursor);
    } else if (computed) {
      // Up to the newest transaction below the snapshot's xmin: every one of those has ended.
      const horizon = await xminHorizon(this.db, settle);
      if (horizon.heldBy) {
        const { since, pid, application } = horizon.heldBy;
        this.warn(`job "${job.name}": reads rows of transactions up to ${horizon.lastSettled} only: a transaction open since ${since} (pid ${pid}${application ? `, application "${application}"` : ''}) holds the rest until it ends`);
      }
      position = { upper: horizon.lastSettled };
      lower = watermark.value ?? undefined;
    } else if (dialect.kind === 'sqlite' && type === 'datetime') {
      // SQLite text in mixed forms, or numbers: see sqlite-datetime-window.ts.
      const current = watermark.value;
      const floor = current === null || current === INITIAL_DATETIME ? null : lookbackLowerBound(type, current, job.lookbackSeconds);
      const window = await openSqliteDatetimeWindow(this.db, entity, column, floor, columnWhat);
      if (!window) return;
      const horizon = await this.horizon(type, settle, job.name);
      this.warnFuture(job.name, window.ceiling, horizon.before);
      position = { upper: window.upper, exact: { floor: window.floor, ceiling: window.ceiling, before: horizon.before, ...(window.numeric ? { numeric: window.numeric } : {}) } };
      lower = window.lower;
    } else {
      let upper: unknown;
      if ((dialect.kind === 'postgres' || dialect.kind === 'mysql') && type === 'number') {
        const snapshot = dialect.kind === 'mysql' ? await mysqlNumberSnapshot(this.db, entity, column, this.clock) : await numberSnapshot(this.db, entity, column, this.clock);
        if ('blindSpot' in snapshot && snapshot.blindSpot) this.warn(`job "${job.name}": ${snapshot.blindSpot}`);
        if (snapshot.unsettled) {
          this.warn(`job "${job.name}": other transactions kept writing while the maximum of ${column} in ${entity} was read; a number they hold could lie below it, so this run reads nothing and the next one tries again`);
          return;
        }
        upper = snapshot.upper;
      } else {
        const [bound] = await this.db.query(buildUpperBoundQuery(entity, column), [], `read the maximum of ${column} in ${entity}`);
        upper = bound?.upper;
      }
      if (upper === null || upper === undefined) return;
      position = { upper };
      if (type === 'datetime' || type === 'date') {
        const horizon = await this.horizon(type, settle, job.name);
        position.before = dialect.watermarkParameter(type, horizon.before, upper, columnWhat);
        this.warnFuture(job.name, upper, horizon.before, type);
      }
      const current = watermark.value;
      if (current !== null) {
        lower = type
          ? dialect.watermarkParameter(type, lookbackLowerBound(type, current, job.lookbackSeconds), upper, columnWhat)
          : current;
      }
    }

    const exact = position.exact;
    const run = { mapping, job, clock: this.clock, lookup: new ResolverCache(this) };
    // Rows of one bulk update share their watermark value: its canonical form is computed once.
    let lastRaw: unknown;
    let lastCanonical: string | null = null;
    const changeOf = (row: SqlRow): RowChange | undefined => {
      const raw = row[job.watermark.field];
      let changeTracker: string;
      if (exact) {
        // The SQL bounds are supersets: rows outside the exact window are not changes of this run.
        const inWindow: string | null = raw === lastRaw && lastCanonical !== null ? lastCanonical : inSqliteWindow(exact, raw, columnWhat);
        lastRaw = raw;
        lastCanonical = inWindow;
        if (inWindow === null) return undefined;
        changeTracker = inWindow;
      } else {
        if (lastCanonical === null || raw !== lastRaw || typeof raw === 'object') {
          lastCanonical = canonicalChangeTracker(row, job);
          lastRaw = raw;
        }
        changeTracker = lastCanonical;
      }
      return sqlRowChange(dialect, row, changeTracker);
    };
    const query = (limit?: number) => buildChangeQuery(dialect, {
      entity, watermark: column, keys, filter: job.filter, softDelete: job.softDelete,
      upper: position.upper, before: position.before, lower, after: position.after, limit, what,
      ...(computed ? { watermarkAs: quoted } : {}),
    });
    const operation = `read changes from ${entity}`;
    // A computed tracker has no index: the run's rows in one query, streamed, not a scan per page.
    const whole = computed ? query() : undefined;
    const stream = whole ? this.db.stream?.(whole.sql, whole.params, pageSize, operation) : undefined;
    const batches = stream ?? this.pages(() => query(pageSize), pageSize, operation);
    for await (const rows of batches) {
      const changes = await serializeRows(run, rows, changeOf);
      const last = rows[rows.length - 1];
      position = { ...position, after: { watermark: last[job.watermark.field], keys: mapping.source.key.map((k) => last[k]) } };
      yield changePage(changes, { cursor: encodeCursor(position), hasMore: rows.length === pageSize });
    }
  }

  /** Keyset pages of `pageSize` rows, the query rebuilt from the run's position before each; none empty. */
  private async *pages(query: () => { sql: string; params: unknown[] }, pageSize: number, operation: string): AsyncIterable<SqlRow[]> {
    for (;;) {
      const { sql, params } = query();
      const rows = await this.db.query(sql, params, operation);
      if (rows.length > 0) yield rows;
      if (rows.length < pageSize) return;
    }
  }

  /** Tells when the newest stamp lies far in the future (see futureStampWarning); a value that does not read as a time is left to the run's own checks. */
  private warnFuture(jobName: string, upper: unknown, before: string, type?: 'datetime' | 'date'): void {
    let canonical: string;
    try {
      canonical = typeof upper === 'string' && type === undefined ? upper : WatermarkValue.canonicalize(type ?? 'datetime', upper);
    } catch {
      return;
    }
    const warning = futureStampWarning(jobName, canonical, before);
    if (warning) this.warn(warning);
  }

  /** The source's settled horizon; an open transaction holding it back is told, as are hidden sessions. */
  private async horizon(type: 'datetime' | 'date', settleSeconds: number, jobName: string): Promise<SettledHorizon> {
    const horizon = this.db.dialect.kind === 'mysql' ? await mysqlHorizon(this.db, type, settleSeconds) : await settledHorizon(this.db, type, settleSeconds);
    if (horizon.heldBy) {
      const { since, pid, application } = horizon.heldBy;
      this.warn(`job "${jobName}": reads changes stamped before ${since} only: a transaction open since then (pid ${pid}${application ? `, application "${application}"` : ''}) may still commit rows stamped at that time`);
    }
    if (horizon.hiddenSessions) {
      this.warn(`job "${jobName}": ${horizon.hiddenSessions} session(s) of other users cannot be seen (grant pg_read_all_stats to the connection's user): rows their open transactions commit late could be missed`);
    }
    if (horizon.blindSpot) this.warn(`job "${jobName}": ${horizon.blindSpot}`);
    return horizon;
  }

  currentTrackers(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<CurrentTrackers> {
    return readCurrentTrackers(this.db, mapping, job, sourceKeys);
  }

  /**
   * Reads records by key as detection would send them now (see `readSqlByKeys`): the same
   * messages, built by the same code, whatever the watermark, lookback and settle horizon.
   */
  readByKeys(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<Map<string, QueueMessage>> {
    return readSqlByKeys(this.db, { mapping, job, clock: this.clock, lookup: new ResolverCache(this) }, sourceKeys);
  }

  async lookupRelated(entity: string, matchField: string, returnField: string, value: unknown): Promise<unknown> {
    const { dialect } = this.db;
    const table = quoteEntity(entity, dialect, 'resolver.entity');
    const params = new SqlParams(dialect);
    const sql =
      `SELECT ${quoteIdentifier(returnField, 'resolver.returnField')} AS "value" FROM ${table} ` +
      `WHERE ${quoteIdentifier(matchField, 'resolver.matchField')} = ${params.add(value)} LIMIT 1`;
    const [row] = await this.db.query(sql, params.values, `resolve ${matchField} in ${table}`);
    return row === undefined ? undefined : row.value;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
