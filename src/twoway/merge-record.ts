import { applyOperations } from '../../connectors/base/operations';
import type { Pair, PairSideName } from '../model/pair';
import type { JsonValue } from '../model/queue-message';
import { fieldHash } from './field-hash';
import type { SyncField } from './sync-fields';

/** A record as one side's job reads it now (fields in the other side's names and notation). */
export interface RecordView {
  fields: Record<string, JsonValue>;
  tracker: string | null;
}

/** A write one side needs: the changed fields in that side's names (all of them when `create`), or a delete. */
export type SideWrite = { kind: 'upsert'; fields: Record<string, JsonValue>; create: boolean } | { kind: 'delete' };

export interface MergeInput {
  pair: Pair;
  /** The side the message came from. */
  side: PairSideName;
  fields: readonly SyncField[];
  /** The record on the message's side (s), as its job reads it; undefined when gone (deleted). */
  s?: RecordView;
  /** The record on the other side (t), as the partner job reads it; undefined when gone. */
  t?: RecordView;
  /** What s and t held at the last sync (by field id); undefined when not coupled. */
  base?: { s: Record<string, string>; t: Record<string, string> };
  /** A parked conflict an operator resolved: that side wins the conflicting fields. */
  resolution?: PairSideName;
  /** For `newest`: the side whose tracker is later, undefined when they cannot be ordered. */
  newer(sTracker: string | null, tTracker: string | null): 's' | 't' | undefined;
}

export interface MergeResult {
  /** What to write on the other side, and on the message's side. */
  writeT?: SideWrite;
  writeS?: SideWrite;
  /** The coupling's hashes after the writes; `remove` drops the coupling; undefined keeps it as it is. */
  hashes?: { s: Record<string, string>; t: Record<string, string> } | 'remove';
  /** Fields parked for an operator (`manual`). */
  parked: string[];
  /** One line per decision that was not plain (a conflict, a delete), for the log. */
  decisions: string[];
}

type Winner = 's' | 't' | 'park';

/**
 * Decides what one record pair needs, field by field, from both sides' current state and what
 * they held at the last sync (see docs/two-way.md). Pure: reads nothing, writes nothing.
 */
export function mergeRecord(input: MergeInput): MergeResult {
  const { s, t, base } = input;
  if (!s && !t) return { hashes: base ? 'remove' : undefined, parked: [], decisions: base ? ['gone on both sides: uncoupled'] : [] };
  if (!s || !t) return mergeOneSided(input);
  const result: MergeResult = { parked: [], decisions: [] };
  const hashS: Record<string, string> = { ...(base?.s ?? {}) };
  const hashT: Record<string, string> = { ...(base?.t ?? {}) };
  const toT: Record<string, JsonValue> = {};
  const toS: Record<string, JsonValue> = {};
  for (const f of input.fields) {
    if (f.key) continue;
    const sValue = f.flows === 'toS' ? undefined : s.fields[f.t];
    const tValue = f.flows === 'toT' ? undefined : t.fields[f.s];
    const sHash = fieldHash(sValue);
    const tHash = fieldHash(tValue);
    const sChanged = base?.s[f.id] !== sHash;
    const tChanged = base?.t[f.id] !== tHash;
    const takeS = () => {
      toT[f.t] = sValue ?? null;
      hashS[f.id] = sHash;
      if (f.flows === 'both') hashT[f.id] = fieldHash(convert(sValue, f.toS, f.t) as JsonValue);
    };
    const takeT = () => {
      toS[f.s] = tValue ?? null;
      hashT[f.id] = tHash;
      if (f.flows === 'both') hashS[f.id] = fieldHash(convert(tValue, f.toT, f.s) as JsonValue);
    };
    if (f.flows === 'toT') {
      if (sChanged) takeS();
      continue;
    }
    if (f.flows === 'toS') {
      if (tChanged) takeT();
      continue;
    }
    const equal = sHash === fieldHash(convert(tValue, f.toT, f.s) as JsonValue);
    if (equal) {
      hashS[f.id] = sHash;
      hashT[f.id] = tHash;
    } else if (sChanged && !tChanged) takeS();
    else if (tChanged && !sChanged) takeT();
    else {
      const winner = conflictWinner(input, f);
      const both = `s ${input.side} tracker ${s.tracker ?? 'none'}, other side tracker ${t.tracker ?? 'none'}`;
      result.decisions.push(`field "${f.id}" changed on both sides (${both}): ${winner === 'park' ? 'parked for an operator' : `side ${sideName(input.side, winner)} wins (${input.resolution ? 'resolved by hand' : f.policy})`}`);
      if (winner === 's') takeS();
      else if (winner === 't') takeT();
      else result.parked.push(f.id);
    }
  }
  if (Object.keys(toT).length > 0) result.writeT = { kind: 'upsert', fields: toT, create: false };
  if (Object.keys(toS).length > 0) result.writeS = { kind: 'upsert', fields: toS, create: false };
  result.hashes = { s: hashS, t: hashT };
  return result;
}

/** One side is gone (deleted, or outside its filter): create, delete, restore or uncouple. */
function mergeOneSided(input: MergeInput): MergeResult {
  const { s, t, base, pair } = input;
  const present = (s ? 's' : 't') as 's' | 't';
  const view = (s ?? t) as RecordView;
  const result: MergeResult = { parked: [], decisions: [] };
  const create = (): void => {
    const fields = copyFields(input.fields, present, view);
    if (present === 's') result.writeT = { kind: 'upsert', fields, create: true };
    else result.writeS = { kind: 'upsert', fields, create: true };
    result.hashes = createdHashes(input.fields, present, view);
  };
  if (!base) {
    // Never synced: the record is new on the side that has it.
    create();
    return result;
  }
  const presentBase = present === 's' ? base.s : base.t;
  const edited = input.fields.some((f) => !f.key && f.flows !== (present === 's' ? 'toS' : 'toT') && presentBase[f.id] !== fieldHash(view.fields[present === 's' ? f.t : f.s]));
  const gone = sideName(input.side, present === 's' ? 't' : 's');
  const kept = sideName(input.side, present);
  let restore: boolean;
  if (edited) {
    const policy = input.resolution ?? pair.conflicts;
    const winner = policy === 'manual' ? 'park' : policy === 'a' || policy === 'b' ? (policy === gone ? 'delete' : 'restore') : 'restore';
    result.decisions.push(`record deleted on side ${gone} and changed on side ${kept}: ${winner === 'park' ? 'parked for an operator' : winner === 'delete' ? `the delete wins (${policy})` : `the edit wins (${policy === 'newest' ? 'newest: an edit outlives a delete' : policy})`}`);
    if (winner === 'park') {
      result.parked.push('(deleted)');
      return result;
    }
    restore = winner === 'restore';
  } else if (pair.deletes === 'uncouple') {
    result.decisions.push(`record deleted on side ${gone}: uncoupled (deletes: uncouple)`);
    result.hashes = 'remove';
    return result;
  } else restore = pair.deletes === 'restore';
  if (restore) {
    if (!edited) result.decisions.push(`record deleted on side ${gone}: restored from side ${kept} (deletes: restore)`);
    create();
    return result;
  }
  if (present === 's') result.writeS = { kind: 'delete' };
  else result.writeT = { kind: 'delete' };
  result.hashes = 'remove';
  return result;
}

function conflictWinner(input: MergeInput, f: SyncField): Winner {
  const policy = input.resolution ?? f.policy;
  if (policy === 'manual') return 'park';
  if (policy === 'newest') return input.newer(input.s?.tracker ?? null, input.t?.tracker ?? null) ?? (input.side === 'a' ? 's' : 't');
  return policy === input.side ? 's' : 't';
}

/** The pair side name of the message's side (`s`) or the other (`t`). */
function sideName(side: PairSideName, which: 's' | 't'): PairSideName {
  return which === 's' ? side : side === 'a' ? 'b' : 'a';
}

/** Every field the present side sends, in the other side's names (a create writes them all, keys included). */
function copyFields(fields: readonly SyncField[], present: 's' | 't', view: RecordView): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const f of fields) {
    if (present === 's' && f.flows !== 'toS') out[f.t] = view.fields[f.t] ?? null;
    if (present === 't' && f.flows !== 'toT') out[f.s] = view.fields[f.s] ?? null;
  }
  return out;
}

/** The hashes both sides will read after a create from `present`'s values. */
function createdHashes(fields: readonly SyncField[], present: 's' | 't', view: RecordView): { s: Record<string, string>; t: Record<string, string> } {
  const s: Record<string, string> = {};
  const t: Record<string, string> = {};
  for (const f of fields) {
    if (f.key) continue;
    // A field that flows only towards the present side is not written by the create: the new
    // record holds no value there (a column default that is not null comes back as a change).
    if (present === 's') {
      if (f.flows !== 'toS') s[f.id] = fieldHash(view.fields[f.t]);
      t[f.id] = f.flows === 'both' ? fieldHash(convert(view.fields[f.t], f.toS, f.t) as JsonValue) : fieldHash(null);
    } else {
      if (f.flows !== 'toT') t[f.id] = fieldHash(view.fields[f.s]);
      s[f.id] = f.flows === 'both' ? fieldHash(convert(view.fields[f.s], f.toT, f.s) as JsonValue) : fieldHash(null);
    }
  }
  return { s, t };
}

/** A value through a field's operations (only invertible ones reach a two-way field: no row needed). */
function convert(value: JsonValue | undefined, operations: SyncField['toT'], name: string): unknown {
  return operations.length === 0 ? value : applyOperations(value ?? null, operations, {}, `field "${name}"`);
}
