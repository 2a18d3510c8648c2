import type { JsonValue } from '../model/queue-message';
import type { PairSideName } from '../model/pair';

/**
 * The coupling of one record pair: which record on side b belongs to which on side a, and what
 * each side held when the two were last in sync — per field, a hash of the value as that
 * side's job reads it (see `field-hash.ts`). A side changed a field since the last sync exactly
 * when its value now hashes differently; nothing here depends on timing.
 */
export interface Coupling {
  pair: string;
  /** The record's key on side a (key values joined with `|`, as a message's `sourceKey`). */
  keyA: string;
  /** The record's key on side b. */
  keyB: string;
  /** Per pair field (by its `a` name): hash of side a's value when last in sync. */
  hashA: Record<string, string>;
  /** Per pair field (by its `a` name): hash of side b's value when last in sync. */
  hashB: Record<string, string>;
  /** Side a's change tracker when last synced; null before. */
  trackerA: string | null;
  trackerB: string | null;
  /** When the coupling was last written (ISO 8601). */
  syncedAt: string;
  /** Opaque version for {@link CouplingStore.put}'s optimistic concurrency; absent on a new coupling. */
  version?: string;
}

/** A conflict a pair's `manual` policy parked: both versions, until an operator decides. */
export interface PairConflict {
  pair: string;
  keyA: string;
  keyB: string;
  /** The fields both sides changed (by their `a` name). */
  fields: string[];
  /** Side a's record as side a's job reads it (fields in side b's names), its tracker; `deleted` when gone. */
  a: { values: Record<string, JsonValue>; tracker: string | null; deleted?: boolean };
  b: { values: Record<string, JsonValue>; tracker: string | null; deleted?: boolean };
  detectedAt: string;
  /** Set by `highwater conflicts resolve`: the side whose values win; the next sync of the record applies it. */
  resolution?: PairSideName;
  resolvedAt?: string;
}

/**
 * Where couplings and parked conflicts live: Table Storage on Azure, the local table store
 * locally (one implementation over the `TableStorage` port). Every method throws the error
 * taxonomy of `src/platform/errors.ts` (a storage outage is a `TransientError`).
 */
export interface CouplingStore {
  /** The coupling of the record with `key` on `side`, or undefined when it is not coupled. */
  get(pair: string, side: PairSideName, key: string): Promise<Coupling | undefined>;
  /** The couplings of many records of one side (missing ones are absent from the map). */
  getMany(pair: string, side: PairSideName, keys: readonly string[]): Promise<Map<string, Coupling>>;
  /**
   * Writes a coupling, findable by both its keys. With `coupling.version` (as read), the write
   * succeeds only when nobody wrote it since; without, only when it does not exist yet.
   * A coupling whose `keyB` changed drops its old b-side lookup.
   * @throws TransientError named `coupling changed` (retry after reading again) when the check fails.
   */
  put(coupling: Coupling): Promise<void>;
  /** Removes a coupling (both lookups); false when there was none. */
  remove(pair: string, keyA: string): Promise<boolean>;
  /** Every coupling of a pair, ordered by `keyA`. */
  list(pair: string): Promise<Coupling[]>;

  /** The parked conflict of a record (by its a key), or undefined. */
  getConflict(pair: string, keyA: string): Promise<PairConflict | undefined>;
  /** Records or replaces a parked conflict. */
  putConflict(conflict: PairConflict): Promise<void>;
  /** Removes a parked conflict; false when there was none. */
  removeConflict(pair: string, keyA: string): Promise<boolean>;
  /** Parked conflicts, of one pair or of all, ordered by pair and `keyA`. */
  listConflicts(pair?: string): Promise<PairConflict[]>;
}
