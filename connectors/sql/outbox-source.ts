import { ConnectorBase } from '../base/connector-base';
import { type RelatedValueLookup, ResolverCache } from '../base/resolvers';
import type { SkippedRow } from '../base/skipped-rows';
import type { RefusedMessage, RetrieveOptions, SourceConnector, SourcePage } from '../base/source-connector';
import type { Clock } from '../../src/platform/clock';
import { ConfigError, errorKind, errorMessage } from '../../src/platform/errors';
import { DEFAULT_PAGE_SIZE, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { parseWatermarkType, type WatermarkValue } from '../../src/model/watermark-value';
import type { SqlDatabase, SqlRow } from './dialect';
import { type OutboxDialect, outboxTable } from './outbox-dialect';
import { outboxRowMeaning } from './outbox-rows';
import { DEFAULT_LEASE_SECONDS, type OutboxSettings } from './outbox-settings';
import { OutboxStore } from './outbox-store';

/** The retention runs at most this often per source instance (each durable page is a run of its own). */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Reads an application's outbox table: exact by construction, because rows are claimed and
 * marked instead of read past a high-water mark. A row whose transaction commits after a row with
 * a higher id is simply free on a later read; a delete is a row like any other; the id orders a
 * record's changes and is its message's change tracker, so the target's version guard
 * (`skipOutdatedMessages`) keeps the newest when two readers' pages overtake each other.
 *
 * A read claims a page of free rows for `leaseSeconds`; {@link acknowledge} marks them processed
 * once their messages are on the bus. A reader that dies in between leaves its rows to the next
 * claim after the lease, which sends them again under the same message ids (the broker drops the
 * copy within its duplicate window; the version guard absorbs a later one). A row that cannot
 * become a message (bad payload, unknown action, a value the mapping cannot convert) is set aside
 * with its reason at once and reported as a skipped row of the run; the rest go on.
 */
export class OutboxSource extends ConnectorBase implements SourceConnector {
  private readonly store: OutboxStore;
  /** Per page handed out: the id of each message's row. */
  private readonly claims = new WeakMap<SourcePage, ReadonlyMap<QueueMessage, unknown>>();
  private readonly leaseMs: number;
  private retainedAt = Number.NEGATIVE_INFINITY;

  constructor(
    db: SqlDatabase,
    private readonly settings: OutboxSettings,
    dialect: OutboxDialect,
    /** Resolver lookups of mapped fields (the connection's plain SQL source). */
    private readonly related: RelatedValueLookup & { close(): Promise<void> },
    private readonly clock: Pick<Clock, 'now'>,
    private readonly connectionName: string,
  ) {
    super();
    this.store = new OutboxStore(db, outboxTable(settings, db, connectionName), dialect);
    this.leaseMs = (settings.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  }

  async *retrieveChanges(mapping: Mapping, job: Job, _watermark: WatermarkValue, options: RetrieveOptions = {}): AsyncIterable<SourcePage> {
    this.checkJob(job);
    const type = this.store.table.quoted.type !== undefined ? mapping.source.entity : undefined;
    const pageSize = options.pageSize ?? job.pageSize ?? DEFAULT_PAGE_SIZE;
    const claiming = options.preview !== true;
    if (claiming) await this.retain();
    const lookup = new ResolverCache(this.related);
    let after: unknown = null;
    for (;;) {
      const now = this.clock.now();
      const rows = claiming ? await this.store.claim(type, pageSize, now, this.leaseMs) : await this.store.peek(type, pageSize, after, now, this.leaseMs);
      if (rows.length === 0) return;
      after = rows[rows.length - 1][this.store.table.raw.id];
      const page = await this.pageOf(rows, mapping, job, lookup, claiming, rows.length === pageSize);
      yield page;
      if (!page.hasMore) return;
    }
  }

  /**
   * Marks the page's rows processed, and sets aside the rows of messages the queue refused (see
   * {@link SourceConnector.acknowledge}).
   */
  async acknowledge(page: SourcePage, refused: readonly RefusedMessage[] = []): Promise<void> {
    const rows = this.claims.get(page);
    if (!rows) return;
    this.claims.delete(page);
    const refusedIds = new Map(refused.flatMap((r) => (rows.has(r.message) ? [[rows.get(r.message), r.error] as const] : [])));
    for (const [id, error] of refusedIds) await this.store.setAside(id, `the queue refused its message: ${error}`);
    await this.store.markProcessed([...rows.values()].filter((id) => !refusedIds.has(id)), this.clock.now());
  }

  private async pageOf(rows: SqlRow[], mapping: Mapping, job: Job, lookup: RelatedValueLookup, claiming: boolean, hasMore: boolean): Promise<SourcePage> {
    const messages: QueueMessage[] = [];
    const skipped: SkippedRow[] = [];
    const sent = new Map<QueueMessage, unknown>();
    let lastChangeTracker: string | null = null;
    const { raw } = this.store.table;
    for (const outboxRow of rows) {
      const id = outboxRow[raw.id];
      const meaning = outboxRowMeaning(outboxRow, this.store.table, mapping);
      lastChangeTracker = meaning.changeTracker;
      let reason: string | undefined;
      if (meaning.kind === 'dead') reason = meaning.reason;
      else {
        try {
          const { row, kind: _, ...ctx } = meaning;
          const message = await ConnectorBase.serialize(row, mapping, job, { ...ctx, clock: this.clock, lookup });
          messages.push(message);
          sent.set(message, id);
          continue;
        } catch (err) {
          // A value the mapping cannot take is this row's problem. A mapping that fits no row
          // (ConfigError), a resolver's dependency not there yet, an outage are not: the run
          // fails and the claimed rows come back after the lease.
          if (errorKind(err) !== 'permanent') throw err;
          reason = errorMessage(err);
        }
      }
      if (claiming) await this.store.setAside(id, reason);
      const fate = claiming ? 'set aside' : 'would be set aside';
      skipped.push({ sourceKey: meaning.kind === 'dead' ? meaning.sourceKey : null, changeTracker: meaning.changeTracker, error: `outbox row ${String(id)} ${fate} (${raw.deadReason}): ${reason}` });
    }
    const last = rows[rows.length - 1][raw.id];
    const page: SourcePage = {
      messages, timeStamps: [], ...(skipped.length > 0 ? { skipped } : {}), lastChangeTracker, rowCount: rows.length, cursor: `outbox:${String(last)}`, hasMore,
    };
    if (claiming) this.claims.set(page, sent);
    return page;
  }

  /** The retention, at most once per {@link RETENTION_INTERVAL_MS}. */
  private async retain(): Promise<void> {
    const days = this.settings.retentionDays;
    const now = this.clock.now().getTime();
    if (days === undefined || now - this.retainedAt < RETENTION_INTERVAL_MS) return;
    this.retainedAt = now;
    await this.store.purge(new Date(now - days * 86_400_000));
  }

  /** @throws ConfigError for a job setting an outbox read cannot honour. */
  private checkJob(job: Job): void {
    const reading = `reading the outbox of connection "${this.connectionName}"`;
    if (parseWatermarkType(job.watermark.type) !== 'number') {
      throw new ConfigError(`job "${job.name}": watermark.type must be number when ${reading} (the outbox id is the change tracker), got ${JSON.stringify(job.watermark.type)}`);
    }
    if (job.filter.length > 0) throw new ConfigError(`job "${job.name}": filter is not supported when ${reading} (the application decides what it writes to the outbox)`);
    if (job.softDelete) throw new ConfigError(`job "${job.name}": softDelete is not supported when ${reading} (the application writes a delete row instead)`);
  }

  async close(): Promise<void> {
    await this.related.close();
  }
}
