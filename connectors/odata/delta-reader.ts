import { changePage, type RowChange, serializeRows } from '../base/change-page';
import { type RelatedValueLookup, ResolverCache } from '../base/resolvers';
import type { RetrieveOptions, SourcePage } from '../base/source-connector';
import type { Clock } from '../../src/platform/clock';
import { PermanentError } from '../../src/platform/errors';
import { DEFAULT_PAGE_SIZE, type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { WatermarkValue } from '../../src/model/watermark-value';
import { checkDeltaJob, DELTA_LINK_FIELD, formatDeltaWatermark, nextStamp, parseDeltaWatermark } from './delta-watermark';
import { decodeCursor, encodeCursor } from './odata-cursor';
import { matchesCondition } from './odata-filter';
import type { OdataHttpClient, OdataResponse } from './odata-http';
import { identifier, queryString } from './odata-literals';
import { isRemovedEntry, recordChange, removedEntryKey, rowsOf, selectedFields, withoutAnnotations } from './source-rows';
import { completeRows } from './row-completion';
import { optionalServiceModel } from './service-model';
import { propertyTypes, readTypedRow } from './typed-values';

export interface DeltaReaderOptions {
  http: OdataHttpClient;
  /** Time of detection (`detectedAt`) and of the run's stamp. */
  clock: Pick<Clock, 'now'>;
  /** Resolver lookups of the source (cached per run). */
  lookup: RelatedValueLookup;
  /**
   * Whether the failure of a stored delta link means it expired, so a full resync follows.
   * Default: HTTP 410 Gone (OData, Business Central).
   */
  isExpired?: (err: unknown) => boolean;
  /** Where the resync is logged. Default: nowhere. */
  warn?: (message: string) => void;
  /** Type records by the service's `$metadata` (see `OdataSourceOptions.typedValues`). Default false. */
  typedValues?: boolean;
  /** Where `$metadata` is, relative to the service root. Default `$metadata`. */
  metadataUrl?: string;
  /** The property types of an entity set from elsewhere than `$metadata` (see `OdataSourceOptions.columnTypes`). */
  columnTypes?: (set: string) => Promise<ReadonlyMap<string, string> | undefined>;
}

/** HTTP status of a classified error (see `classifyHttpFailure`). */
export function statusOf(err: unknown): number | undefined {
  const details = err && typeof err === 'object' && 'details' in err ? (err.details as { status?: unknown } | undefined) : undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}

/**
 * Change tracking (`Prefer: odata.track-changes`): the first run reads the whole entity set and
 * ends with an `@odata.deltaLink`; each later run follows the stored link and gets what changed
 * since, new and updated records as they are now, removed ones as `$deletedEntity` entries
 * (which become `Delete` messages carrying the source key only). The link is stored as the
 * job's `string` watermark (see `delta-watermark.ts`). A record the answer gives without some
 * selected properties is read whole first (see `completeRows`). A stored link the service no longer
 * accepts starts a full resync, which is logged. The service does not filter tracked reads
 * (Dataverse refuses `$filter`), so `job.filter` is applied to the records read.
 */
export class DeltaReader {
  constructor(private readonly options: DeltaReaderOptions) {}

  async *retrieve(mapping: Mapping, job: Job, watermark: WatermarkValue, options: RetrieveOptions = {}): AsyncIterable<SourcePage> {
    checkDeltaJob(job);
    const { http } = this.options;
    const set = identifier(mapping.source.entity, `mapping "${mapping.name}": source.entity`);
    // Types from elsewhere are read first: a run that cannot type its records reads none.
    const columnTypes = this.options.columnTypes ? await this.options.columnTypes(set) : undefined;
    const pageSize = options.pageSize ?? job.pageSize ?? DEFAULT_PAGE_SIZE;
    // The filter is applied to the records read, so they must carry its fields (mapped or not).
    const select = new Set([...selectedFields(mapping, job), ...job.filter.map((c, i) => identifier(c.field, `job "${job.name}": filter[${i}].field`))]);
    const initial = `${set}${queryString([['$select', [...select].join(',')]])}`;
    const get = (url: string) =>
      http.request({
        method: 'GET',
        url,
        headers: { Prefer: `odata.track-changes,odata.maxpagesize=${pageSize}` },
        operation: `read changes from ${set}`,
        retryThrottled: true,
      });

    let stamp: string;
    let response: OdataResponse;
    if (options.cursor) {
      const position = decodeCursor(options.cursor);
      if (position.mode !== 'delta') throw new PermanentError(`job "${job.name}": the paging cursor is not one of a change-tracking run`);
      if (position.next === '') return;
      stamp = position.stamp;
      response = await get(position.next);
    } else {
      const stored = parseDeltaWatermark(watermark.value);
      stamp = nextStamp(this.options.clock.now(), stored?.stamp);
      response = stored ? await this.followStored(stored.link, initial, job, get) : await get(initial);
    }

    const run = { mapping, job, clock: this.options.clock, lookup: new ResolverCache(this.options.lookup) };
    const types = columnTypes ?? (this.options.typedValues ? propertyTypes((await optionalServiceModel(http, this.options.warn, this.options.metadataUrl)).get(set)) : undefined);
    const completion = { http, set, keys: mapping.source.key, select: [...select], operation: `read changes from ${set}`, types };
    for (;;) {
      const rows = await completeRows(rowsOf(response, `read changes from ${set}`, types), completion);
      // Every change of a run carries its stamp, so the page's tracker is the stamp when any row was a change.
      const changes = await serializeRows(run, rows, (row) => deltaChange(row, mapping, job, stamp, types));
      const nextLink = response.body?.['@odata.nextLink'];
      if (typeof nextLink === 'string') {
        const next = http.resolveLink(nextLink, response);
        yield changePage(changes, { cursor: encodeCursor({ mode: 'delta', stamp, next }), hasMore: true });
        response = await get(next);
        continue;
      }
      const deltaLink = response.body?.['@odata.deltaLink'];
      if (typeof deltaLink !== 'string') {
        throw new PermanentError(`job "${job.name}": ${set} answered without @odata.deltaLink: is change tracking enabled for it?`);
      }
      const tracker = formatDeltaWatermark(stamp, http.resolveLink(deltaLink, response));
      yield {
        ...changePage(changes, { cursor: encodeCursor({ mode: 'delta', stamp, next: '' }), hasMore: false }),
        timeStamps: [{ action: JobActionType.TimeStamp, sourceKey: DELTA_LINK_FIELD, changeTracker: tracker }],
        lastChangeTracker: tracker,
      };
      return;
    }
  }

  private async followStored(link: string, initial: string, job: Job, get: (url: string) => Promise<OdataResponse>): Promise<OdataResponse> {
    try {
      return await get(link);
    } catch (err) {
      const expired = this.options.isExpired ?? ((e: unknown) => statusOf(e) === 410);
      if (!expired(err)) throw err;
      this.options.warn?.(`job "${job.name}": the stored delta link is no longer valid; reading everything again (full resync)`);
      return get(initial);
    }
  }
}

/**
 * An entry of a delta answer as a change: a removed record becomes a `Delete` of its key, a
 * record not matching `job.filter` is none (the service does not filter tracked reads). Reads by
 * key of a change-tracking job make their records changes by it too.
 */
export function deltaChange(raw: Record<string, unknown>, mapping: Mapping, job: Job, stamp: string, types: ReadonlyMap<string, string> | undefined): RowChange | undefined {
  if (isRemovedEntry(raw)) {
    return { row: removedEntryKey(raw, mapping), changeTracker: stamp, action: JobActionType.Delete, missingFieldsAreNull: true };
  }
  const row = readTypedRow(withoutAnnotations(raw), types);
  if (!job.filter.every((condition) => matchesCondition(row, condition))) return undefined;
  return recordChange(row, job, stamp);
}
