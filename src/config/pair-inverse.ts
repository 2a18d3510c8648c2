import type { SourceOperation } from '../model/mapping';

/**
 * Which operations a field that flows both ways may carry. A value written to the other side
 * must come back as the value it was, or every sync would see a change (and edit it back): the
 * only operation with an exact inverse is a `valueMap` that maps no two values to one, maps none
 * to null, and has no `default` (an unmatched value passes through unchanged both ways).
 */

type ValueMap = Extract<SourceOperation, { op: 'valueMap' }>;

/** Why `ops` have no inverse, or undefined when they have one (no operations at all have one). */
export function inverseProblem(ops: readonly SourceOperation[] | undefined): string | undefined {
  if (ops === undefined || ops.length === 0) return undefined;
  const lossy = ops.find((op) => op.op !== 'valueMap');
  if (lossy) return `operation "${lossy.op}" has no inverse`;
  if (ops.length > 1) return 'only a single valueMap has an inverse, not a chain of operations';
  const map = ops[0] as ValueMap;
  if (map.default !== undefined) return 'operation "valueMap" has no inverse (it has a default)';
  const seen = new Map<string, string>();
  for (const [from, to] of Object.entries(map.map)) {
    if (to === null) return `operation "valueMap" has no inverse (it maps ${JSON.stringify(from)} to null)`;
    const earlier = seen.get(String(to));
    if (earlier !== undefined) return `operation "valueMap" has no inverse (it maps ${JSON.stringify(earlier)} and ${JSON.stringify(from)} to the same value)`;
    seen.set(String(to), from);
  }
  return undefined;
}

/** The inverse of operations without {@link inverseProblem}: none, or the reversed valueMap. */
export function inverseOf(ops: readonly SourceOperation[] | undefined): SourceOperation[] | undefined {
  if (ops === undefined || ops.length === 0) return undefined;
  const map = ops[0] as ValueMap;
  // valueMap compares values as strings, so the reversed map's keys are the values' string forms.
  return [{ op: 'valueMap', map: Object.fromEntries(Object.entries(map.map).map(([from, to]) => [String(to), from])) }];
}

/** The string form of a valueMap (what it does to each value), or undefined for no operations. */
function mapping(ops: readonly SourceOperation[] | undefined): string | undefined {
  if (ops === undefined || ops.length === 0) return undefined;
  const map = (ops[0] as ValueMap).map;
  return JSON.stringify(Object.keys(map).sort().map((key) => [key, String(map[key])]));
}

/** Whether `toA` undoes `toB` exactly (both without {@link inverseProblem}). */
export function areInverses(toB: readonly SourceOperation[] | undefined, toA: readonly SourceOperation[] | undefined): boolean {
  return mapping(inverseOf(toB)) === mapping(toA);
}
