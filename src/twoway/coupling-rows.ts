import type { PairSideName } from '../model/pair';
import { ConfigError } from '../platform/errors';
import { sha256Hex } from '../platform/sha256';
import { decodeJsonProperties, encodeJsonProperties } from '../storage/entity-codec';
import type { EntityProperties, TableRow, VersionedRow } from '../storage/table-store';
import type { Coupling, PairConflict } from './coupling-store';

/**
 * How couplings and parked conflicts are laid out in their tables. Record keys may hold any
 * character (`/`, `#`, `?` and control characters are not allowed in table keys) and be long, so
 * row keys hold their sha256 and the real keys are properties.
 *
 * A coupling has one row per side in the `couplings` table, both in partitions
 * `<pair>|<first hex digit of the row key's hash>`: Azurite finds an entity to replace by
 * scanning its partition, so one partition per pair would make every write cost as much as the
 * pair's records (see `applied-hash-store.ts`), and sixteen keep a batch's reads to about one
 * query per partition.
 * - `a|<sha256(keyA)>`: the coupling itself (authoritative, carries the version).
 * - `b|<sha256(keyB)>`: a lookup `KeyB → KeyA`, valid only while the a row it points to has that
 *   `KeyB` (a lookup left behind by a crash or a changed `keyB` is ignored).
 */

/** Where a coupling's row of one side is. */
export interface RowRef {
  partitionKey: string;
  rowKey: string;
}

/** The row of `key` on `side` of `pair`. */
export function couplingRef(pair: string, side: PairSideName, key: string): RowRef {
  const hash = sha256Hex(key);
  return { partitionKey: `${pair}|${hash[0]}`, rowKey: `${side}|${hash}` };
}

/** Every partition that can hold `pair`'s couplings. */
export function couplingPartitions(pair: string): string[] {
  return [...'0123456789abcdef'].map((bucket) => `${pair}|${bucket}`);
}

/** Whether a row is a coupling (an a row), not a b lookup. */
export function isCouplingRow(row: TableRow): boolean {
  return row.rowKey.startsWith('a|');
}

const HASHES = { prefix: 'Hashes' };

/** The a row of a coupling (its version is not stored: the table keeps it). */
export function couplingRow(coupling: Coupling): TableRow {
  const properties: EntityProperties = {
    Pair: coupling.pair,
    KeyA: coupling.keyA,
    KeyB: coupling.keyB,
    TrackerA: coupling.trackerA,
    TrackerB: coupling.trackerB,
    SyncedAt: coupling.syncedAt,
    ...encodeJsonProperties({ a: coupling.hashA, b: coupling.hashB }, HASHES),
  };
  return { ...couplingRef(coupling.pair, 'a', coupling.keyA), properties };
}

/** The b lookup of a coupling. */
export function lookupRow(pair: string, keyB: string, keyA: string): TableRow {
  return { ...couplingRef(pair, 'b', keyB), properties: { KeyB: keyB, KeyA: keyA } };
}

function text(row: TableRow, name: string): string | undefined {
  const value = row.properties[name];
  return typeof value === 'string' ? value : undefined;
}

/** The a key a b lookup points to, when the lookup is the one of `keyB` (a hash collision is not). */
export function lookupTarget(row: TableRow | undefined, keyB: string): string | undefined {
  return row && text(row, 'KeyB') === keyB ? text(row, 'KeyA') : undefined;
}

/** The coupling an a row holds, when it is the one of `keyA`. @throws ConfigError when the row is damaged. */
export function couplingOf(pair: string, row: VersionedRow, keyA?: string): Coupling | undefined {
  const storedKeyA = text(row, 'KeyA');
  const keyB = text(row, 'KeyB');
  if (keyA !== undefined && storedKeyA !== keyA) return undefined;
  const item = `coupling ${JSON.stringify(row.partitionKey)}/${JSON.stringify(row.rowKey)}`;
  if (storedKeyA === undefined || keyB === undefined) throw new ConfigError(`${item} has no KeyA or KeyB`);
  const hashes = decodeJsonProperties(item, row.properties, HASHES) as { a?: Record<string, string>; b?: Record<string, string> };
  return {
    pair,
    keyA: storedKeyA,
    keyB,
    hashA: hashes.a ?? {},
    hashB: hashes.b ?? {},
    trackerA: text(row, 'TrackerA') ?? null,
    trackerB: text(row, 'TrackerB') ?? null,
    syncedAt: text(row, 'SyncedAt') ?? '',
    version: row.version,
  };
}

const CONFLICT = { prefix: 'Conflict' };

/** The row of a parked conflict: partition = pair, row key = sha256 of the a key. */
export function conflictRef(pair: string, keyA: string): RowRef {
  return { partitionKey: pair, rowKey: sha256Hex(keyA) };
}

/** The row of a conflict: its keys readable, the whole conflict as JSON. */
export function conflictRow(conflict: PairConflict): TableRow {
  return {
    ...conflictRef(conflict.pair, conflict.keyA),
    properties: { KeyA: conflict.keyA, KeyB: conflict.keyB, DetectedAt: conflict.detectedAt, ...encodeJsonProperties(conflict, CONFLICT) },
  };
}

/** The conflict a row holds, when it is the one of `keyA`. @throws ConfigError when the row is damaged. */
export function conflictOf(row: TableRow, keyA?: string): PairConflict | undefined {
  if (keyA !== undefined && text(row, 'KeyA') !== keyA) return undefined;
  return decodeJsonProperties(`conflict ${JSON.stringify(row.partitionKey)}/${JSON.stringify(row.rowKey)}`, row.properties, CONFLICT) as PairConflict;
}

/** Orders by pair, then `keyA`, by UTF-16 code units (the same order everywhere, unlike `localeCompare`). */
export function byPairAndKeyA(x: { pair: string; keyA: string }, y: { pair: string; keyA: string }): number {
  if (x.pair !== y.pair) return x.pair < y.pair ? -1 : 1;
  return x.keyA < y.keyA ? -1 : x.keyA > y.keyA ? 1 : 0;
}
