import { canonicalChangeTracker } from '../base/connector-base';
import { toText } from '../base/operations';
import type { CurrentTrackers } from '../base/source-connector';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { joinSourceKey } from '../../src/model/source-key';
import { renderFilter } from './odata-filter';
import type { OdataHttpClient } from './odata-http';
import { keyCondition } from './odata-key-filter';
import { identifier, queryString } from './odata-literals';
import { COMPLETION_READ_SIZE } from './row-completion';
import { rowsOf, withoutAnnotations } from './source-rows';
import { readTypedRow } from './typed-values';

export interface CurrentTrackersRead {
  http: OdataHttpClient;
  /** Property types of the entity set (`$metadata`), name → `Edm.*`; undefined when the connection reads untyped. */
  types: ReadonlyMap<string, string> | undefined;
}

/**
 * The current change tracker of the records named by `sourceKeys`, read from the mapping's entity
 * set: `$filter` on their keys ({@link COMPLETION_READ_SIZE} records a request, the URL stays
 * short; each key's literals typed, see {@link keyCondition}), `$select` of keys and watermark. With a job
 * filter, a second read with the filter added tells the records outside it (answered null).
 * Rows are matched back by the text detection builds a `sourceKey` from.
 * @throws the client's classified errors; ConfigError for a name that is no OData identifier.
 */
export async function readOdataCurrentTrackers(read: CurrentTrackersRead, mapping: Mapping, job: Job, sourceKeys: readonly string[]): Promise<CurrentTrackers> {
  const set = identifier(mapping.source.entity, `mapping "${mapping.name}": source.entity`);
  const keys = mapping.source.key.map((k, i) => identifier(k, `mapping "${mapping.name}": source.key[${i}]`));
  const field = identifier(job.watermark.field, `job "${job.name}": watermark.field`);
  const filter = renderFilter(job.filter, `job "${job.name}": filter`);
  const wanted = [...new Set(sourceKeys)];
  const found = new Map<string, string | null>();
  for (let i = 0; i < wanted.length; i += COMPLETION_READ_SIZE) {
    const chunk = wanted.slice(i, i + COMPLETION_READ_SIZE);
    const byKey = (condition?: string) => {
      const any = chunk.map((key) => keyCondition(key, keys, read.types, mapping)).map((c) => (chunk.length > 1 ? `(${c})` : c)).join(' or ');
      return condition ? `(${any}) and (${condition})` : any;
    };
    const rows = await readRows(read, set, [...new Set([...keys, field])], byKey(), chunk.length);
    const inScope = filter ? new Set((await readRows(read, set, keys, byKey(filter), chunk.length)).map((row) => sourceKeyOf(row, keys))) : undefined;
    const asked = new Set(chunk);
    for (const row of rows) {
      const key = sourceKeyOf(row, keys);
      if (!asked.has(key)) continue;
      const raw = row[field];
      found.set(key, (inScope && !inScope.has(key)) || raw === null || raw === undefined ? null : canonicalChangeTracker(row, job));
    }
  }
  return found;
}

/** Every record of the filter, typed, following the service's pages (a service may cap a page below the records asked for). */
export async function readRows(
  read: CurrentTrackersRead, set: string, select: readonly string[], filter: string, count: number, operation = `read the current change tracker of ${count} record(s) in ${set}`,
): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  let url: string | undefined = `${set}${queryString([['$filter', filter], ['$select', select.join(',')]])}`;
  while (url !== undefined) {
    const response = await read.http.request({
      method: 'GET',
      url,
      headers: { Prefer: `odata.maxpagesize=${count}` },
      operation,
      retryThrottled: true,
    });
    rows.push(...rowsOf(response, `read ${set} by key`).map((row) => readTypedRow(withoutAnnotations(row), read.types)));
    const link = response.body?.['@odata.nextLink'];
    url = typeof link === 'string' ? read.http.resolveLink(link, response) : undefined;
  }
  return rows;
}

function sourceKeyOf(row: Readonly<Record<string, unknown>>, keys: readonly string[]): string {
  return joinSourceKey(keys.map((k) => toText(row[k])));
}
