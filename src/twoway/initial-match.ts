import { JobActionType } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair, PairMatchField, PairSideName } from '../model/pair';
import type { JsonValue, QueueMessage } from '../model/queue-message';
import { joinSourceKey } from '../model/source-key';
import type { Coupling } from './coupling-store';

/**
 * Initial coupling of a pair (`highwater pairs match`): records that exist on both sides before
 * the first sync, under different keys, are found by the pair's `match` fields, so that the first
 * sync merges them instead of creating each again on the other side. Pure: the caller reads both
 * sides and writes the couplings.
 *
 * Match values are the raw values of the match fields as each side stores them (read through
 * {@link matchReadMapping}), not the mapped ones: a match field may flow one way only, and its
 * operations would otherwise put the two sides in different notations.
 */

/** Prefix of the extra fields {@link matchReadMapping} adds; `$` keeps them apart from real field names. */
const MATCH_FIELD_PREFIX = '$match:';

/** The name under which a read message carries the raw value of match field `index`. */
export function matchFieldName(index: number): string {
  return `${MATCH_FIELD_PREFIX}${index}`;
}

/**
 * A side's job mapping plus an unmapped copy of each match field of that side, so that a read
 * through it carries the raw match values (see {@link matchFieldName}). Only ever used to read.
 */
export function matchReadMapping(mapping: Mapping, match: readonly PairMatchField[], side: PairSideName): Mapping {
  return { ...mapping, fields: [...mapping.fields, ...match.map((m, i) => ({ target: matchFieldName(i), source: m[side] }))] };
}

export interface InitialMatchInput {
  pair: Pair;
  /** Every record of side a, as side a's job reads it through {@link matchReadMapping}. */
  a: readonly QueueMessage[];
  /** Every record of side b, likewise. */
  b: readonly QueueMessage[];
  /** The pair's couplings so far: their records are skipped. */
  couplings: readonly Coupling[];
}

/** Two records found to be one: by their shared key, or by the match fields. */
export interface MatchedPair {
  keyA: string;
  keyB: string;
  by: 'key' | 'fields';
}

/** Records whose match values are equal, but not one to one: listed, never guessed. */
interface AmbiguousMatch {
  /** The match values they share (normalized). */
  values: string[];
  /** Every a record with these values: each has all of `b` as candidates. */
  a: string[];
  b: string[];
}

export interface InitialMatch {
  matched: MatchedPair[];
  ambiguous: AmbiguousMatch[];
  /**
   * Records with the same key on both sides whose match fields differ: not coupled here; the
   * first sync couples them by their key (and merges their fields by the pair's policy).
   */
  keyOnly: Array<{ keyA: string; keyB: string }>;
  /** No counterpart: the first sync creates them on the other side. */
  unmatchedA: string[];
  unmatchedB: string[];
  /** Coupled already: skipped. */
  coupledA: string[];
  coupledB: string[];
}

interface Candidate {
  key: string;
  /** The key its fields map to on the other side; undefined when a part is empty. */
  otherKey: string | undefined;
  /** Normalized match values; undefined when one is empty (it never matches). */
  values: string[] | undefined;
}

/** A match value as compared: text; trimmed and lower-cased with `ignoreCase`; undefined when empty. */
export function normalizeMatchValue(value: JsonValue | undefined, ignoreCase: boolean): string | undefined {
  if (value === null || value === undefined) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text.trim() === '') return undefined;
  return ignoreCase ? text.trim().toLowerCase() : text;
}

function candidatesOf(messages: readonly QueueMessage[], otherKeyFields: readonly string[], match: readonly PairMatchField[]): Map<string, Candidate> {
  const byKey = new Map<string, Candidate>();
  for (const message of messages) {
    // A record its side counts as deleted (soft delete) takes no part; a later read of a key wins.
    if (message.action === JobActionType.Delete) {
      byKey.delete(message.sourceKey);
      continue;
    }
    const keyParts = otherKeyFields.map((field) => message.targetKey[field]);
    const otherKey = keyParts.some((v) => v === undefined || v === null || v === '') ? undefined : joinSourceKey(keyParts);
    const values = match.map((m, i) => normalizeMatchValue(message.fields[matchFieldName(i)], m.ignoreCase));
    byKey.set(message.sourceKey, { key: message.sourceKey, otherKey, values: values.some((v) => v === undefined) ? undefined : (values as string[]) });
  }
  return byKey;
}

const sameValues = (x: string[] | undefined, y: string[] | undefined): boolean => x !== undefined && y !== undefined && x.every((v, i) => v === y[i]);

/**
 * Matches the records of both sides (see docs/two-way.md, "Initial coupling"): first by their
 * shared key (the same key mapped both ways, on both sides; with match fields, only when they
 * agree), then the rest by equal match values, one to one. Every result list is sorted.
 */
export function matchRecords(input: InitialMatchInput): InitialMatch {
  const match = input.pair.match ?? [];
  const a = candidatesOf(input.a, input.pair.b.key, match);
  const b = candidatesOf(input.b, input.pair.a.key, match);
  const result: InitialMatch = { matched: [], ambiguous: [], keyOnly: [], unmatchedA: [], unmatchedB: [], coupledA: [], coupledB: [] };
  const coupledA = new Set(input.couplings.map((c) => c.keyA));
  const coupledB = new Set(input.couplings.map((c) => c.keyB));
  for (const [records, coupled, skipped] of [[a, coupledA, result.coupledA], [b, coupledB, result.coupledB]] as const) {
    for (const key of [...records.keys()]) {
      if (!coupled.has(key)) continue;
      records.delete(key);
      skipped.push(key);
    }
  }

  // Shared keys first: the first sync would pair these records by key whatever their fields say.
  for (const [keyA, x] of a) {
    const y = x.otherKey === undefined ? undefined : b.get(x.otherKey);
    if (!y || y.otherKey !== keyA) continue;
    if (match.length === 0 || sameValues(x.values, y.values)) result.matched.push({ keyA, keyB: y.key, by: 'key' });
    else result.keyOnly.push({ keyA, keyB: y.key });
    a.delete(keyA);
    b.delete(y.key);
  }

  if (match.length > 0) {
    const groups = new Map<string, { values: string[]; a: string[]; b: string[] }>();
    const add = (side: PairSideName, c: Candidate) => {
      if (!c.values) return;
      const id = JSON.stringify(c.values);
      const group = groups.get(id) ?? { values: c.values, a: [], b: [] };
      group[side].push(c.key);
      groups.set(id, group);
    };
    for (const c of a.values()) add('a', c);
    for (const c of b.values()) add('b', c);
    for (const group of groups.values()) {
      if (group.a.length === 0 || group.b.length === 0) continue;
      if (group.a.length === 1 && group.b.length === 1) result.matched.push({ keyA: group.a[0], keyB: group.b[0], by: 'fields' });
      else result.ambiguous.push({ values: group.values, a: group.a.sort(), b: group.b.sort() });
      for (const key of group.a) a.delete(key);
      for (const key of group.b) b.delete(key);
    }
  }

  result.unmatchedA = [...a.keys()];
  result.unmatchedB = [...b.keys()];
  const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  result.matched.sort((x, y) => byText(x.keyA, y.keyA));
  result.keyOnly.sort((x, y) => byText(x.keyA, y.keyA));
  result.ambiguous.sort((x, y) => byText(x.a[0], y.a[0]));
  for (const list of [result.unmatchedA, result.unmatchedB, result.coupledA, result.coupledB]) list.sort(byText);
  return result;
}

/**
 * The coupling of a match: both keys, no hashes, no trackers. Without hashes every field counts
 * as changed on both sides, so the first sync of the record writes where the values differ and
 * the pair's conflict policy picks the value (see `merge-record.ts`).
 */
export function initialCoupling(pair: string, matched: MatchedPair, now: Date): Coupling {
  return { pair, keyA: matched.keyA, keyB: matched.keyB, hashA: {}, hashB: {}, trackerA: null, trackerB: null, syncedAt: now.toISOString() };
}
