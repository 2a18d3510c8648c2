import type { Mapping, SourceOperation } from '../model/mapping';
import type { ConflictPolicy, Pair, PairSideName } from '../model/pair';
import { ConfigError } from '../platform/errors';

/**
 * One pair field seen from the side a message came from ("s") towards the side it goes to
 * ("t"). Values are compared in the notation each side's job reads them: the s job's message
 * holds t's field names and t's notation (after `toT`), the partner job's holds s's names.
 */
export interface SyncField {
  /** The field's name on side a: its id in the coupling. */
  id: string;
  /** Name on the message's side. */
  s: string;
  /** Name on the other side. */
  t: string;
  flows: 'both' | 'toT' | 'toS';
  /** A key field on either side: identity, never merged. */
  key: boolean;
  /** Operations of the s→t mapping for this field (s notation → t notation). */
  toT: readonly SourceOperation[];
  /** Operations of the t→s mapping (t notation → s notation). */
  toS: readonly SourceOperation[];
  policy: ConflictPolicy;
}

/**
 * The fields of `pair` seen from `side`, with the operations of the two generated mappings (the
 * expansion derived the inverses there: this reads them, it does not derive them again).
 * @throws ConfigError when a generated mapping lacks a field of the pair (a config not expanded by this version).
 */
export function syncFields(pair: Pair, side: PairSideName, mapping: Mapping, partnerMapping: Mapping): SyncField[] {
  const keys = new Set([...pair.a.key.map((k) => `a:${k}`), ...pair.b.key.map((k) => `b:${k}`)]);
  return pair.fields.map((field) => {
    const s = side === 'a' ? field.a : field.b;
    const t = side === 'a' ? field.b : field.a;
    const flows = field.direction === 'both' ? 'both' : (field.direction === 'toB') === (side === 'a') ? 'toT' : 'toS';
    const operationsOf = (m: Mapping, target: string, needed: boolean): readonly SourceOperation[] => {
      const mapped = m.fields.find((f) => f.target === target && f.source !== undefined);
      if (!mapped && needed) throw new ConfigError(`pair "${pair.name}": mapping "${m.name}" does not map field "${target}"`);
      return mapped?.operations ?? [];
    };
    return {
      id: field.a,
      s,
      t,
      flows,
      key: keys.has(`a:${field.a}`) || keys.has(`b:${field.b}`),
      toT: operationsOf(mapping, t, flows !== 'toS'),
      toS: operationsOf(partnerMapping, s, flows !== 'toT'),
      policy: field.conflict ?? pair.conflicts,
    };
  });
}
