import { changePage, serializeRows } from '../base/change-page';
import { futureStampWarning, SERVICE_SETTLE_SECONDS, serviceNow, timeHorizon } from '../base/time-horizon';
import { ConnectorBase, canonicalChangeTracker } from '../base/connector-base';
import { type RelatedValueLookup, ResolverCache } from '../base/resolvers';
import type { CurrentTrackers, RetrieveOptions, SourceConnector, SourcePage } from '../base/source-connector';
import { lookbackLowerBound } from '../sql/change-window';
import type { Clock } from '../../src/platform/clock';
import { PermanentError } from '../../src/platform/errors';
import { DEFAULT_PAGE_SIZE, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { parseWatermarkType, WatermarkValue } from '../../src/model/watermark-value';
import { readOdataCurrentTrackers } from './odata-current-trackers';
import { DeltaReader, type DeltaReaderOptions } from './delta-reader';
import { isDeltaJob } from './delta-watermark';
import { decodeCursor, encodeCursor } from './odata-cursor';
import { renderFilter } from './odata-filter';
import type { OdataHttpClient } from './odata-http';
import { identifier, literal, queryString, watermarkLiteral } from './odata-literals';
import { recordChange, rowsOf, selectedFields, withoutAnnotations } from './source-rows';
import { readOdataByKeys } from './odata-read-by-keys';
import { optionalServiceModel } from './service-model';
import { propertyTypes, readTypedRow } from './typed-values';

export interface OdataSourceOptions {
  http: OdataHttpClient;
  /** Time of detection (`detectedAt`; the stamp of a change-tracking run). */
  clock: Pick<Clock, 'now'>;
  /** Change tracking (jobs whose watermark field is `@odata.deltaLink`). */
  delta?: Omit<DeltaReaderOptions, 'http' | 'clock' | 'lookup'>;
  /**
   * Read the service's `$metadata` (once per connection) and type what JSON cannot say:
   * `Edm.Binary` as bytes, `Edm.Int64` sent as strings as numbers where a double holds them
   * (typed-values.ts). A service without a usable document is read untyped, with a warning.
   * Default false (Dataverse types its reads by `columnTypes` instead: its document holds every table).
   */
  typedValues?: boolean;
  /** Where `$metadata` is, relative to the service root. Default `$metadata` (Business Central: `../$metadata`, the API route's). */
  metadataUrl?: string;
  /**
   * The property types (`Edm.*`) of an entity set from elsewhere than `$metadata` (Dataverse: one
   * table's column definitions), read at the start of a run; wins over `typedValues`. Default: none.
   */
  columnTypes?: (set: string) => Promise<ReadonlyMap<string, string> | undefined>;
}

const INITIAL = new Set(['0001-01-01T00:00:00.0000000Z', '0001-01-01']);

/**
 * Detects changes in one OData entity set by a watermark property.
 *
 * A run first reads the property's current maximum as its upper bound and the service's time (its
 * `Date` header) for the settled horizon (time-horizon.ts), then asks for records with
 * `lower < watermark <= upper` and `watermark < horizon` (and the job filter), so a change stamped
 * in a second that is not over yet is left to the next run, `$orderby` watermark then key,
 * `$select` of the mapped fields, and follows the service's `@odata.nextLink` pages, asking for
 * `job.pageSize` records a page (`Prefer: odata.maxpagesize`). Records changed during the run
 * move beyond the bound and are read next run. Paging relies on the service's skip tokens: a
 * service whose tokens are plain offsets can skip a record when one already read changes
 * mid-run (Dataverse and Business Central tokens are key-based; SAP CAP needs
 * `cds.query.limit.reliablePaging`). Jobs whose watermark field is `@odata.deltaLink` use change
 * tracking instead (see {@link DeltaReader}). Throttled reads wait for `Retry-After` and retry.
 */
export class OdataSource extends ConnectorBase implements SourceConnector, RelatedValueLookup {
  private readonly delta: DeltaReader;

  constructor(private readonly options: OdataSourceOptions) {
    super();
    this.delta = new DeltaReader({ ...options.delta, http: options.http, clock: options.clock, lookup: this, typedValues: options.typedValues, metadataUrl: options.metadataUrl, columnTypes: options.columnTypes });
  }

  async *retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options: RetrieveOptions = {}): AsyncIterable<SourcePage> {
    if (isDeltaJob(job)) {
      yield* this.delta.retrieve(mapping, job, watermark, options);
      return;
    }
    const { http } = this.options;
    const set = identifier(mapping.source.entity, `mapping "${mapping.name}": source.entity`);
    const field = identifier(job.watermark.field, `job "${job.name}": watermark.field`);
    // Types from elsewhere are read first: a run that cannot type its records reads none.
    const columnTypes = this.options.columnTypes ? await this.options.columnTypes(set) : undefined;
    const type = parseWatermarkType(job.watermark.type);
    const pageSize = options.pageSize ?? job.pageSize ?? DEFAULT_PAGE_SIZE;
    const headers = { Prefer: `odata.maxpagesize=${pageSize}` };

    let upper: string;
    let next: string;
    if (options.cursor) {
      const position = decodeCursor(options.cursor);
      if (position.mode !== 'watermark') throw new PermanentError(`job "${job.name}": the paging cursor is not one of a watermark run`);
      ({ upper, next } = position);
      if (next === '') return;
    } else {
      const top = await http.request({
        method: 'GET',
        url: `${set}${queryString([['$select', field], ['$filter', `${field} ne null`], ['$orderby', `${field} desc`], ['$top', '1']])}`,
        operation: `read the maximum of ${field} in ${set}`,
        retryThrottled: true,
      });
      const [max] = rowsOf(top, `read ${set}`);
      if (max?.[field] === null || max?.[field] === undefined) return;
      upper = type ? WatermarkValue.canonicalize(type, max[field]) : String(max[field]);
      const conditions = [`${field} le ${type ? watermarkLiteral(type, upper) : literal(upper, field)}`];
      const now = serviceNow(top.headers.get('date'), this.options.clock.now());
      const horizon = timeHorizon(type, now, job.settleSeconds ?? SERVICE_SETTLE_SECONDS);
      // Only when the newest change may be unsettled: a settled maximum needs no second bound.
      if (horizon !== undefined && horizon <= upper) {
        conditions.push(`${field} lt ${watermarkLiteral(type, horizon)}`);
        const future = futureStampWarning(job.name, upper, horizon);
        if (future) this.options.delta?.warn?.(future);
      }
      const current = watermark.value;
      if (current !== null && !INITIAL.has(current)) {
        const lower = type ? lookbackLowerBound(type, current, job.lookbackSeconds) : current;
        conditions.unshift(`${field} gt ${watermarkLiteral(type, lower)}`);
      }
      const filter = renderFilter(job.filter, `job "${job.name}": filter`);
      if (filter) conditions.push(filter);
      const select = selectedFields(mapping, job).join(',');
      const orderby = [field, ...mapping.source.key.filter((k) => k !== field)].map((f) => `${f} asc`).join(',');
      next = `${set}${queryString([['$select', select], ['$filter', conditions.join(' and ')], ['$orderby', orderby]])}`;
    }

    const run = { mapping, job, clock: this.options.clock, lookup: new ResolverCache(this) };
    const types = columnTypes ?? (this.options.typedValues ? propertyTypes((await optionalServiceModel(http, this.options.delta?.warn, this.options.metadataUrl)).get(set)) : undefined);
    for (;;) {
      const response = await http.request({ method: 'GET', url: next, headers, operation: `read changes from ${set}`, retryThrottled: true });
      const rows = rowsOf(response, `read ${set}`, types).map((row) => readTypedRow(withoutAnnotations(row), types));
      const link = response.body?.['@odata.nextLink'];
      const following = typeof link === 'string' ? http.resolveLink(link, response) : undefined;
      if (rows.length > 0) {
        const changes = await serializeRows(run, rows, (row) => recordChange(row, job, canonicalChangeTracker(row, job)));
        yield changePage(changes, { cursor: encodeCursor({ mode: 'watermark', upper, next: following ?? '' }), hasMore: following !== undefined });
      }
      if (following === undefined) return;
      next = following;
    }
  }

  async currentTrackers(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<CurrentTrackers | undefined> {
    // Change tracking: a change's tracker is the run's stamp, not the record's; nothing to compare.
    if (isDeltaJob(job)) return undefined;
    return readOdataCurrentTrackers({ http: this.options.http, types: await this.typesOf(mapping) }, mapping, job, sourceKeys);
  }

  /**
   * Reads records by key as detection would send them now (see `readOdataByKeys`): the same
   * messages, built by the same code, whatever the watermark, lookback and settle horizon; for a
   * change-tracking job too (by `$filter` on the key, outside change tracking).
   */
  async readByKeys(mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<Map<string, QueueMessage>> {
    const types = await this.typesOf(mapping);
    const run = { mapping, job, clock: this.options.clock, lookup: new ResolverCache(this) };
    return readOdataByKeys({ http: this.options.http, types }, run, sourceKeys);
  }

  /** The source entity set's property types, as detection types its records; undefined when read untyped. */
  private async typesOf(mapping: Mapping): Promise<ReadonlyMap<string, string> | undefined> {
    const { http } = this.options;
    const set = identifier(mapping.source.entity, `mapping "${mapping.name}": source.entity`);
    if (this.options.columnTypes) return this.options.columnTypes(set);
    return this.options.typedValues ? propertyTypes((await optionalServiceModel(http, this.options.delta?.warn, this.options.metadataUrl)).get(set)) : undefined;
  }

  async lookupRelated(entity: string, matchField: string, returnField: string, value: unknown): Promise<unknown> {
    const set = identifier(entity, 'resolver.entity');
    const match = identifier(matchField, 'resolver.matchField');
    const field = identifier(returnField, 'resolver.returnField');
    const response = await this.options.http.request({
      method: 'GET',
      url: `${set}${queryString([['$filter', `${match} eq ${literal(value, 'resolver value')}`], ['$select', field], ['$top', '1']])}`,
      operation: `resolve ${match} in ${set}`,
      retryThrottled: true,
    });
    const [row] = rowsOf(response, `resolve ${match} in ${set}`);
    return row === undefined ? undefined : (row[field] ?? null);
  }

  async close(): Promise<void> {}
}
