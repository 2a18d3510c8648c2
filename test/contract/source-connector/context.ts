import type { SourceConnector, SourcePage } from '../../../connectors/base/source-connector';
import { type FilterCondition, type Job, JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../../src/model/queue-message';
import { WatermarkValue } from '../../../src/model/watermark-value';
import type { ValueKind } from '../value-matrix';

/**
 * One record of the contract's entity, in the contract's terms; each harness maps it onto its
 * system (a table, an entity set, recorded answers). `at` is the second of 2026-01-01 at which
 * it last changed (its change tracker, where the system tracks changes per record).
 */
export interface SourceRecord {
  key: number;
  at: number;
  label?: string;
  /** What the job filter of the filter case selects on: it keeps `keep`. Default `keep`. */
  group?: 'keep' | 'drop';
  /** A removed record (soft-deleted, or reported removed by change tracking). */
  deleted?: boolean;
}

/**
 * What a case may need beyond reading changes in order; a harness declares what its system cannot
 * express. `watermark`: the read is bounded by the stored watermark, a page cursor continues a
 * run, and a new run reads again what a stopped one gave (a source that hands out work — an
 * outbox — gives each row once and bounds nothing by the watermark). `filter`: the job filter.
 * `readByKeys`: the optional port method reading records by key (two-way sync).
 */
export type Capability = 'pageSize' | 'lookback' | 'deletes' | 'timeStamps' | 'exactValues' | 'watermark' | 'filter' | 'readByKeys';

export type CaseId =
  | 'in-order' | 'page-size' | 'serialized' | 'empty-source'
  | 'after-watermark' | 'lookback' | 'filter'
  | 'cursor' | 'early-stop'
  | 'deletes' | 'timestamps' | 'values'
  | 'read-by-keys' | 'read-by-keys-filter' | 'read-by-keys-deletes' | 'read-by-keys-composite' | 'read-by-keys-many' | 'read-by-keys-values';

/** What a case asks the harness for: a fresh entity holding `seed`. */
export interface SourceScenario {
  /** Recorded harnesses look the case's exchanges up by it. */
  id: CaseId;
  seed: readonly SourceRecord[];
  uses: readonly Capability[];
}

/** The source fields of the contract's entity on a system. */
interface SourceFields {
  key: string;
  label: string;
  /** The job's watermark field (`@odata.deltaLink` for change tracking). */
  tracker: string;
  /** The field the filter case filters on; not mapped (a filter needs no mapped field). */
  group: string;
}

/** A source prepared for one case. */
export interface PreparedSource {
  /** A new connector on the case's entity (each call); `done` closes what is still open. */
  source(): SourceConnector;
  entity: string;
  fields: SourceFields;
  watermarkType: 'datetime' | 'string' | 'number';
  /** The stored watermark after every change up to second `at` was read; null: nothing read yet. */
  watermark(at: number | null): WatermarkValue;
  /** The key as the system holds it (what `sourceKey` and the mapped `ref` carry). */
  keyValue(key: number): JsonValue;
  /** The canonical change tracker a record's message of the case's first run carries. */
  trackerOf(record: SourceRecord): string;
  /** The value of `fields.group` for a group. */
  groupValue(group: 'keep' | 'drop'): JsonValue;
  /** The job's soft-delete condition, where removed records are soft-deleted ones. */
  softDelete?: FilterCondition;
  /** Live systems: adds records while a run reads (recorded exchanges cannot change under a run). */
  add?(records: readonly SourceRecord[]): Promise<void>;
  /** Live systems: asserts that the system holds nothing (lock, transaction) for a stopped run. */
  released?(): Promise<void>;
  /** Closes the case's connectors; on recorded exchanges asserts that all were requested, as recorded. */
  done(): Promise<void>;
}

/**
 * A source holding the exact-value matrix (`test/contract/value-matrix.ts`) in the system's own
 * types: one record per 64-bit integer, keyed 1 to 4 in the matrix's order, the first with a value
 * of every other kind too; all changed at second 1.
 */
export interface PreparedValues {
  /** A new connector on the entity (each call); `done` closes what is still open. */
  source(): SourceConnector;
  entity: string;
  key: string;
  tracker: string;
  watermarkType: 'datetime' | 'string';
  /** The source field of each kind the system has a type for; the others are not read. */
  columns: Partial<Record<ValueKind, string>>;
  /** The system keeps JSON as text (SQLite): the message carries that text. Default false. */
  jsonAsText?: boolean;
  done(): Promise<void>;
}

/** What an adapter's runner hands to `runSourceConnectorContract`. */
export interface SourceHarness {
  prepare(scenario: SourceScenario): Promise<PreparedSource>;
  /**
   * The value matrix; required unless the runner declares `exactValues` unsupported.
   * @param id the case (recorded harnesses script its exchanges by it). Default `values`.
   */
  prepareValues?(id?: 'values' | 'read-by-keys-values'): Promise<PreparedValues>;
  close(): Promise<void>;
}

/** What the case files use. */
export interface ContractContext {
  /** `it`, or `it.skip` with a printed reason when the system cannot express one of `uses`. */
  caseIt(uses: readonly Capability[]): (title: string, fn: () => Promise<void>) => void;
  prepare(scenario: SourceScenario): Promise<PreparedSource>;
  prepareValues(id?: 'values' | 'read-by-keys-values'): Promise<PreparedValues>;
}

/** Second `s` of 2026-01-01 as ISO 8601. */
export const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

/** Records `keys` changed at the seconds of the same index (default: second = key). */
export const records = (keys: readonly number[], seconds: readonly number[] = keys): SourceRecord[] =>
  keys.map((key, i) => ({ key, at: seconds[i], label: `record ${key}` }));

/** The contract's mapping: the key as `ref` (the target key), the label upper-cased. */
export function contractMapping(p: PreparedSource): Mapping {
  return {
    name: 'contract',
    source: { entity: p.entity, key: [p.fields.key] },
    target: { entity: 'contract_target', key: ['ref'] },
    fields: [{ target: 'ref', source: p.fields.key }, { target: 'label', source: p.fields.label, operations: [{ op: 'upper' }] }],
  };
}

export interface JobOptions {
  /** Default 100 (every case's records on one page where the system honours it). */
  pageSize?: number;
  lookbackSeconds?: number;
  /** Keep only records of the `keep` group. */
  filter?: boolean;
  softDelete?: boolean;
}

export function contractJob(p: PreparedSource, options: JobOptions = {}): Job {
  return {
    name: 'contract', order: 1, schedule: '0 * * * * *', enabled: true, source: 'src', target: 'tgt', mapping: 'contract',
    priority: 'normal', watermark: { type: p.watermarkType, field: p.fields.tracker }, action: JobActionType.NewUpdate,
    filter: options.filter ? [{ field: p.fields.group, op: 'eq', value: p.groupValue('keep') as string | number }] : [],
    ...(options.softDelete && p.softDelete ? { softDelete: p.softDelete } : {}),
    skipOutdatedMessages: false, skipUnchanged: false, pageSize: options.pageSize ?? 100, lookbackSeconds: options.lookbackSeconds ?? 0,
  };
}

/** A run as the cases compare it. */
export interface Run {
  pages: SourcePage[];
  messages: QueueMessage[];
}

/**
 * Reads a whole run (or up to `stopAfter` pages, then stops the iteration), checks the page
 * invariants of the port on it and advances `watermark` over it, as detection does.
 */
export async function readRun(
  source: SourceConnector, p: PreparedSource, job: Job, watermark: WatermarkValue, options: { cursor?: string; stopAfter?: number } = {},
): Promise<Run> {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(contractMapping(p), job, watermark, options.cursor ? { cursor: options.cursor } : {})) {
    pages.push(page);
    if (pages.length === options.stopAfter) break;
  }
  expectPageInvariants(p, pages, options.stopAfter === undefined);
  for (const page of pages) {
    for (const m of page.messages) watermark.advance(m.changeTracker);
    for (const t of page.timeStamps) watermark.advance(t.changeTracker);
  }
  return { pages, messages: pages.flatMap((page) => page.messages) };
}

/**
 * What the port promises of every run: changes in change-tracker order (across pages), each
 * page's `lastChangeTracker` its last change (null for a page without any), at least as many
 * rows read as changes given, an opaque cursor, and `hasMore` false on the last page only (a
 * page with `hasMore` true may still be the last: "a full page may still be followed by an empty read").
 */
function expectPageInvariants(p: PreparedSource, pages: readonly SourcePage[], complete: boolean): void {
  let previous: string | undefined;
  pages.forEach((page, i) => {
    const where = `page ${i + 1} of ${pages.length}`;
    const trackers = [...page.messages.map((m) => m.changeTracker), ...page.timeStamps.map((t) => t.changeTracker)];
    for (const tracker of trackers) {
      if (previous !== undefined && compareTrackers(p, tracker, previous) < 0) throw new Error(`${where}: change tracker ${tracker} comes after ${previous}`);
      previous = tracker;
    }
    expect({ where, lastChangeTracker: page.lastChangeTracker }).toEqual({ where, lastChangeTracker: trackers.at(-1) ?? null });
    expect({ where, atLeast: page.rowCount >= page.messages.length + (page.skipped?.length ?? 0) }).toEqual({ where, atLeast: true });
    expect({ where, cursor: typeof page.cursor === 'string' && page.cursor.length > 0 }).toEqual({ where, cursor: true });
    expect(page.timeStamps.every((t) => t.action === JobActionType.TimeStamp)).toBe(true);
    if (i < pages.length - 1 || !complete) expect({ where, hasMore: page.hasMore }).toEqual({ where, hasMore: true });
  });
}

/** A run's changes as `[key, tracker]` in the order given, keys as the contract numbers them. */
export function changesOf(p: PreparedSource, run: Run): Array<[number, string]> {
  return run.messages.map((m) => [keyNumber(p, m.sourceKey), m.changeTracker]);
}

/** The contract key of a message's source key. */
export function keyNumber(p: PreparedSource, sourceKey: string): number {
  for (let key = 0; key < 100; key++) if (String(p.keyValue(key)) === sourceKey) return key;
  throw new Error(`no contract key has the source key ${sourceKey}`);
}

/** `[key, tracker]` of records, sorted as a run must give them (by tracker; equal trackers in any order, sorted by key here). */
export function expectedChanges(p: PreparedSource, rows: readonly SourceRecord[]): Array<[number, string]> {
  return sortChanges(p, rows.map((r) => [r.key, p.trackerOf(r)]));
}

export function sortChanges(p: PreparedSource, changes: ReadonlyArray<[number, string]>): Array<[number, string]> {
  return [...changes].sort(([ka, ta], [kb, tb]) => compareTrackers(p, ta, tb) || ka - kb);
}

/** Orders two change trackers as the watermark does. */
function compareTrackers(p: PreparedSource, a: string, b: string): number {
  return WatermarkValue.compare(p.watermarkType, a, b);
}

/**
 * What a read without changes must be, as the port documents it: no changes, and each page
 * (if any) with `lastChangeTracker` null, or its timestamp-only change. An empty source gives
 * no page or one page of no rows; a source whose bounds are supersets may read rows and drop
 * them (SQLite datetime text: `rowCount` counts rows read), so `emptySource: false` allows them.
 */
export function expectNothingRead(run: Run, options: { emptySource: boolean }): void {
  expect(run.messages).toEqual([]);
  if (options.emptySource) expect(run.pages.length).toBeLessThanOrEqual(1);
  for (const page of run.pages) {
    expect(page).toMatchObject({ messages: [], lastChangeTracker: page.timeStamps.at(-1)?.changeTracker ?? null });
    expect(page.skipped).toBeUndefined();
    if (options.emptySource) expect(page).toMatchObject({ rowCount: 0, hasMore: false });
  }
}
