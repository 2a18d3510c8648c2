import type { BatchTarget, ItemOutcome } from '../../../connectors/base/target-batch';
import { type Job, type JobAction, JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../src/model/queue-message';
import { WatermarkValue } from '../../../src/model/watermark-value';
import type { ValueKind } from '../value-matrix';

/**
 * One record of the contract's entity, in the contract's terms; each harness maps it onto its
 * system (a table, an entity set) and its columns. `qty` is a whole number the target requires
 * on create; a value that is no number is a data error of its item.
 */
export interface ContractRecord {
  key: number;
  label?: string;
  qty?: JsonValue;
  /** The record's version (datetime), what a version check compares with. */
  version?: string | null;
  /** The key of the record it belongs to (the parent/child relation). */
  parent?: number;
}

/** A message of a case: a record, or one whose key value is `null` / missing altogether. */
export type ContractItem = ContractRecord | { keyless: 'null' | 'missing'; label: string; qty: number };

/** What a case may need beyond keys, fields and a version column; a harness declares what its system cannot express. */
export type Capability = 'parent' | 'required' | 'nullVersion' | 'generated' | 'exactValues';

export type CaseId =
  | 'applies-in-order' | 'permanent-item-error' | 'required-missing' | 'transitive-item-error' | 'missing-key'
  | 'group-failure' | 'version-check' | 'version-check-null' | 'deletes' | 'response-fields' | 'missing-entity' | 'missing-field';

/** What a case asks the harness for: a fresh entity holding `seed`. */
export interface Scenario {
  /** Recorded harnesses look the case's exchanges up by it. */
  id: CaseId;
  seed: readonly ContractRecord[];
  uses: readonly Capability[];
}

/** How the group of a `group-failure` case must reject (e.g. `{ name: 'TransientError', retryAfterMs: 7000 }`). */
export interface GroupFailure {
  name: string;
  retryAfterMs?: number;
}

/** A target prepared for one case. */
export interface PreparedTarget {
  target: BatchTarget;
  mapping: Mapping;
  /** The message's target key and fields for a contract item (the key as the system's key field). */
  targetKeyOf(item: ContractItem): Record<string, JsonValue>;
  fieldsOf(item: ContractItem): Record<string, JsonValue>;
  /**
   * The record as the target holds it now (null: absent). Undefined on recorded exchanges:
   * there the replay proves, in {@link done}, that every write was sent as recorded.
   */
  read?(key: number): Promise<ContractRecord | null>;
  /** The field the target generates on create (the response-fields case asks for it back). */
  generatedField?: string;
  /** The generated value of a record: read back, or the one its recorded answer holds. */
  generated?(key: number): Promise<JsonValue>;
  /** Makes the next group fail as a whole (throttled, busy, lock cancelled); what the rejection must match. */
  failGroup?(): Promise<GroupFailure>;
  /** Releases what the case took; on recorded exchanges asserts that all of them were requested, as recorded. */
  done(): Promise<void>;
}

/**
 * A fresh, empty entity with a column per kind of the value matrix (`test/contract/value-matrix.ts`)
 * the system has a type for, keyed by a whole number `key`.
 */
export interface PreparedValueTarget {
  target: BatchTarget;
  mapping: Mapping;
  key: string;
  /** The column of each kind the system has a type for. */
  columns: Partial<Record<ValueKind, string>>;
  /**
   * The record as stored, per kind of `columns`: integers and decimals as their exact digits (the
   * system's own text form), bytes as lower-case hex, instants as UTC with six fraction digits, JSON parsed.
   */
  read(key: number): Promise<Partial<Record<ValueKind, unknown>>>;
  /** Values a column of this entity cannot hold exactly (the case expects each to fail naming its column). */
  inexact: ReadonlyArray<{ column: string; value: JsonValue }>;
  /** How the system's errors name a column: `column` (default), `property` (OData). */
  columnWord?: string;
  done(): Promise<void>;
}

/** What an adapter's runner hands to `runTargetConnectorContract`. */
export interface TargetHarness {
  /** A fresh entity (table, entity set, or the case's recording) with the scenario's records. */
  prepare(scenario: Scenario): Promise<PreparedTarget>;
  /** The value matrix's entity; required unless the runner declares `exactValues` unsupported. */
  prepareValues?(): Promise<PreparedValueTarget>;
  close(): Promise<void>;
}

/** What the case files use. */
export interface ContractContext {
  /** `it`, or `it.skip` with a printed reason when the system cannot express one of `uses`. */
  caseIt(uses: readonly Capability[]): (title: string, fn: () => Promise<void>) => void;
  prepare(scenario: Scenario): Promise<PreparedTarget>;
  prepareValues(): Promise<PreparedValueTarget>;
}

export const job: Job = {
  name: 'contract', order: 1, schedule: '0 * * * * *', enabled: true, source: 'src', target: 'tgt', mapping: 'contract',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};

/** Second `s` of 2026-01-01 as ISO 8601 (the versions and change trackers of the cases). */
export const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

/** An outcome as the cases compare it: an error by its kind, a target version canonical. */
export function shownOutcome(outcome: ItemOutcome): unknown {
  if (outcome.status === 'failed') return { status: 'failed', kind: (outcome.error as { name?: string }).name };
  if (outcome.status === 'outdated') return { status: 'outdated', targetVersion: WatermarkValue.canonicalize('datetime', outcome.targetVersion) };
  return outcome;
}

export const applied = { status: 'applied' } as const;
export const failed = (kind: 'PermanentError' | 'TransitiveError') => ({ status: 'failed', kind });
export const outdated = (version: string) => ({ status: 'outdated', targetVersion: WatermarkValue.canonicalize('datetime', version) });

/** Runs a group of `items` (default: upserts) on a prepared target. */
export async function applyGroup(
  p: PreparedTarget,
  items: readonly ContractItem[],
  options: { action?: JobAction; changeTrackers?: readonly string[]; versionCheck?: boolean; returning?: string } = {},
): Promise<ItemOutcome[]> {
  const action = options.action ?? JobActionType.NewUpdate;
  const messages = items.map((item, i) =>
    createQueueMessage({
      jobName: job.name, action, sourceKey: 'key' in item ? `S-${item.key}` : `S-keyless-${i}`,
      targetKey: p.targetKeyOf(item), changeTracker: options.changeTrackers?.[i] ?? at(30), fields: action === JobActionType.Delete ? {} : p.fieldsOf(item),
    }),
  );
  return p.target.applyBatch({
    job, mapping: p.mapping, action, messages,
    versionCheck: options.versionCheck ? { type: 'datetime' } : undefined,
    responseMapping: options.returning ? [{ from: options.returning, to: 'returned' }] : undefined,
  });
}

/** Reads records back where the system can (live servers); recorded systems prove their writes in `done`. */
export async function expectRecords(p: PreparedTarget, expected: Partial<Record<number, Partial<ContractRecord> | null>>): Promise<void> {
  if (!p.read) return;
  for (const [key, record] of Object.entries(expected)) {
    if (record === undefined) continue;
    const got = await p.read(Number(key));
    if (record === null) expect({ key: Number(key), got }).toEqual({ key: Number(key), got: null });
    else expect({ key: Number(key), got }).toEqual({ key: Number(key), got: expect.objectContaining(record) });
  }
}

/** An item's target key: `{ [field]: value(key) }`, or `{ [field]: null }` / `{}` for the keyless ones. */
export function targetKeyFor(item: ContractItem, field: string, value: (key: number) => JsonValue): Record<string, JsonValue> {
  if (!('keyless' in item)) return { [field]: value(item.key) };
  return item.keyless === 'null' ? { [field]: null } : {};
}
