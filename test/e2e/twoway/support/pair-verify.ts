import type { ExpectedRecord } from './pair-plan';
import { ACCOUNT_FIELDS, type AccountValues, type SideRow } from './pair-sides';

/**
 * The two-way suite's verdict on the sides as they stand: both equal row by row as mapped (side
 * b read back into side a's notation, status codes through the value map), and each equal to
 * what the oracle expects of every record.
 */

export interface PairMismatch {
  key: string;
  /** A field, or `(record)` for presence. */
  field: string;
  /**
   * `diverged`: the sides differ; `wrong`: they agree on something else than expected (an edit
   * lost, or a conflict decided against the policy); `unexpected`: a record the workload never
   * created.
   */
  kind: 'diverged' | 'wrong' | 'unexpected';
  expected: unknown;
  a: unknown;
  b: unknown;
}

/** `deleted` when the row is gone or soft-deleted, else its values. */
function stateOf(row: SideRow | undefined): 'deleted' | AccountValues {
  return !row || row.deleted ? 'deleted' : row.values;
}

function same(x: unknown, y: unknown): boolean {
  return x === y || (typeof x === 'number' && typeof y === 'number' && Math.abs(x - y) < 1e-9);
}

export function comparePairs(expected: ReadonlyMap<string, ExpectedRecord>, a: ReadonlyMap<string, SideRow>, b: ReadonlyMap<string, SideRow>): PairMismatch[] {
  const out: PairMismatch[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (!expected.has(key)) out.push({ key, field: '(record)', kind: 'unexpected', expected: undefined, a: a.get(key), b: b.get(key) });
  }
  for (const [key, record] of expected) {
    const sa = stateOf(a.get(key));
    const sb = stateOf(b.get(key));
    if (sa === 'deleted' || sb === 'deleted' || record.deleted) {
      if (sa === 'deleted' && sb === 'deleted' && record.deleted) continue;
      const kind = (sa === 'deleted') !== (sb === 'deleted') ? 'diverged' : 'wrong';
      out.push({ key, field: '(record)', kind, expected: record.deleted ? 'deleted' : record.values, a: sa, b: sb });
      continue;
    }
    for (const field of ACCOUNT_FIELDS) {
      const want = record.values[field];
      if (same(sa[field], want) && same(sb[field], want)) continue;
      out.push({ key, field, kind: same(sa[field], sb[field]) ? 'wrong' : 'diverged', expected: want, a: sa[field], b: sb[field] });
    }
  }
  return out;
}

/** The first few mismatches, readable, for a failure message. */
export function describePairMismatches(mismatches: readonly PairMismatch[]): string {
  const shown = mismatches.slice(0, 12).map((m) => `  ${m.key} ${m.field}: ${m.kind}: expected ${JSON.stringify(m.expected)}, a ${JSON.stringify(m.a)}, b ${JSON.stringify(m.b)}`);
  return `${mismatches.length} mismatches:\n${shown.join('\n')}`;
}
