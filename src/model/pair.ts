import type { FilterCondition, WatermarkSpec } from './job';
import type { SourceOperation } from './mapping';
import type { Priority } from '../platform/queue-topology';

/**
 * Two-way sync: a pair keeps one kind of record equal on two systems ("a" and "b"). It expands
 * into two ordinary jobs and mappings (a→b and b→a) that detect and send as every job does;
 * what makes them a pair is the coupling (what was last in sync, per record and field), which
 * processing consults before it writes (see docs/two-way.md).
 */

/** Which way a field flows. */
type PairDirection = 'both' | 'toB' | 'toA';

/** Who wins a field that both sides changed since the last sync. */
export type ConflictPolicy = 'a' | 'b' | 'newest' | 'manual';

/** What a delete on one side does (a delete on one side and an edit on the other is a conflict). */
type DeletePolicy = 'propagate' | 'restore' | 'uncouple';

export interface PairSide {
  /** Connection name. */
  connection: string;
  /** Table or entity set. */
  entity: string;
  /** Key fields of the record on this side; their values joined with `|` are its key. */
  key: string[];
  /** The change tracker this side's job reads past. */
  watermark: WatermarkSpec;
  /** Only records matching all of these take part. Default none. */
  filter?: FilterCondition[];
  /** Records matching this condition count as deleted on this side. Default none. */
  softDelete?: FilterCondition;
  /**
   * Who last changed the record, when the system records it (Dataverse `_modifiedby_value`, BC
   * `systemModifiedBy`, a column an application fills): a second echo signal, never the only one.
   */
  modifiedBy?: { field: string; value: string };
}

export interface PairField {
  /** Field on side a. */
  a: string;
  /** Field on side b. */
  b: string;
  /** Default `both`. */
  direction: PairDirection;
  /** Operations applied on the way a→b. A field with operations that have no inverse must be one-way. */
  toB?: SourceOperation[];
  /** Operations applied on the way b→a (derived as the inverse of `toB` when that has one). */
  toA?: SourceOperation[];
  /** Overrides the pair's conflict policy for this field. */
  conflict?: Exclude<ConflictPolicy, 'manual'> | 'manual';
}

/** Fields compared to couple records that exist on both sides before the first sync. */
export interface PairMatchField {
  a: string;
  b: string;
  /** Compare case-insensitively (and trimmed). Default false. */
  ignoreCase: boolean;
}

export interface Pair {
  name: string;
  a: PairSide;
  b: PairSide;
  fields: PairField[];
  /** 6-field NCRONTAB of both jobs. Default every minute. */
  schedule: string;
  enabled: boolean;
  priority: Priority;
  /** Default `newest`. */
  conflicts: ConflictPolicy;
  /** Default `propagate`. */
  deletes: DeletePolicy;
  /** Initial coupling by match fields. Default none: records are coupled by their keys only. */
  match?: PairMatchField[];
}

export type PairSideName = 'a' | 'b';

export function otherSide(side: PairSideName): PairSideName {
  return side === 'a' ? 'b' : 'a';
}

/** Names of the jobs and mappings a pair expands into. */
export function pairJobName(pair: string, from: PairSideName): string {
  return `${pair}.${from}-to-${otherSide(from)}`;
}
