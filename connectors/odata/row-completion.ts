import type { OdataHttpClient } from './odata-http';
import { isGuid, literal, queryString } from './odata-literals';
import { isRemovedEntry, rowsOf } from './source-rows';

/** Records asked for in one read: their keys go in the URL's `$filter`, which stays short. */
export const COMPLETION_READ_SIZE = 20;

export interface RowCompletion {
  http: OdataHttpClient;
  /** The entity set read. */
  set: string;
  /** Its key properties (the mapping's source key). */
  keys: readonly string[];
  /** The properties every change must carry (`$select` of the run). */
  select: readonly string[];
  /** What is done, for error messages, e.g. `read changes from accounts`. */
  operation: string;
  /** The set's property types, when described: an `Edm.Untyped` long number read again stays a document (`rowsOf`). */
  types?: ReadonlyMap<string, string>;
}

/**
 * The changes of a change-tracking (or notification) answer, each with every selected property.
 *
 * Such an answer may leave properties out of a record (Dataverse sends changed or non-null
 * columns only), and a property left out says nothing about its value: it may be null, or
 * unchanged. So a record that lacks one is read as it is now (`$filter` on its key, the same
 * `$select`, a few records a request), instead of failing the run as if the mapping named a
 * property the entity does not have, or writing null over a value that did not change. A
 * property the read record lacks too is then really not there: serializing it still fails as a
 * configuration error. A record no longer there when read is left out (its removal comes with
 * a later change). Removed entries and records lacking a key property pass unchanged.
 */
export async function completeRows(rows: ReadonlyArray<Record<string, unknown>>, options: RowCompletion): Promise<Array<Record<string, unknown>>> {
  const lacking = rows.filter((row) => !isRemovedEntry(row) && hasKey(row, options.keys) && options.select.some((field) => !(field in row)));
  if (lacking.length === 0) return [...rows];
  const current = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < lacking.length; i += COMPLETION_READ_SIZE) {
    for (const record of await readRecords(lacking.slice(i, i + COMPLETION_READ_SIZE), options)) current.set(keyOf(record, options.keys), record);
  }
  const out: Array<Record<string, unknown>> = [];
  for (const row of rows) {
    if (!lacking.includes(row)) out.push(row);
    else {
      const record = current.get(keyOf(row, options.keys));
      if (record) out.push(record);
    }
  }
  return out;
}

async function readRecords(rows: ReadonlyArray<Record<string, unknown>>, options: RowCompletion): Promise<Array<Record<string, unknown>>> {
  const filter = rows
    .map((row) => options.keys.map((key) => `${key} eq ${literal(row[key], `source key "${key}"`)}`).join(' and '))
    .map((condition) => (options.keys.length > 1 && rows.length > 1 ? `(${condition})` : condition))
    .join(' or ');
  const response = await options.http.request({
    method: 'GET',
    url: `${options.set}${queryString([['$filter', filter], ['$select', options.select.join(',')]])}`,
    operation: `${options.operation}: read ${rows.length} changed records whole`,
    retryThrottled: true,
  });
  return rowsOf(response, `${options.operation}: read changed records whole`, options.types);
}

function hasKey(row: Readonly<Record<string, unknown>>, keys: readonly string[]): boolean {
  return keys.every((key) => row[key] !== undefined && row[key] !== null);
}

/** The record's key values as one text; a GUID in lower case (services differ in how they write one). */
function keyOf(row: Readonly<Record<string, unknown>>, keys: readonly string[]): string {
  return JSON.stringify(keys.map((key) => (isGuid(row[key]) ? (row[key] as string).toLowerCase() : row[key])));
}
