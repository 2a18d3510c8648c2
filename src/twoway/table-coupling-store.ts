import type { PairSideName } from '../model/pair';
import { TransientError } from '../platform/errors';
import type { TableStorage, TableStore, VersionedRow } from '../storage/table-store';
import type { Coupling, CouplingStore, PairConflict } from './coupling-store';
import {
  byPairAndKeyA,
  conflictOf,
  conflictRef,
  conflictRow,
  couplingOf,
  couplingPartitions,
  couplingRef,
  couplingRow,
  isCouplingRow,
  lookupRow,
  lookupTarget,
  type RowRef,
} from './coupling-rows';

/** Table of couplings: an a row per coupling and a b lookup (see `coupling-rows.ts`). */
export const COUPLINGS_TABLE = 'couplings';
/** Table of parked conflicts: one row per pair and a key. */
export const PAIR_CONFLICTS_TABLE = 'pairconflicts';

/** Attempts of `remove` when the coupling is rewritten between its read and its delete. */
const REMOVE_ATTEMPTS = 5;

/** Groups keys by the partition of their rows on `side`. */
function byPartition(pair: string, side: PairSideName, keys: readonly string[]): Map<string, Array<{ key: string; ref: RowRef }>> {
  const groups = new Map<string, Array<{ key: string; ref: RowRef }>>();
  for (const key of new Set(keys)) {
    const ref = couplingRef(pair, side, key);
    groups.set(ref.partitionKey, [...(groups.get(ref.partitionKey) ?? []), { key, ref }]);
  }
  return groups;
}

function changed(coupling: Coupling, what: string): TransientError {
  return new TransientError(`coupling changed: pair "${coupling.pair}", a key ${JSON.stringify(coupling.keyA)} ${what}; read it again and retry`, {
    details: { pair: coupling.pair },
  });
}

/**
 * {@link CouplingStore} over the `TableStorage` port: Table Storage on Azure, the local table
 * store locally. The a row of a coupling is authoritative and carries the optimistic check; the b
 * lookup is written before it and verified on every read through it, so that no crash between
 * the two writes leaves a coupling its b key cannot find: at worst a lookup that points to an a
 * row which does not name its key, and is ignored. A b key belongs to the coupling that last
 * wrote it.
 */
export class TableCouplingStore implements CouplingStore {
  private tables: Promise<{ couplings: TableStore; conflicts: TableStore }> | undefined;

  constructor(private readonly storage: TableStorage) {}

  async get(pair: string, side: PairSideName, key: string): Promise<Coupling | undefined> {
    const { couplings } = await this.open();
    if (side === 'b') {
      const ref = couplingRef(pair, 'b', key);
      const keyA = lookupTarget(await couplings.get(ref.partitionKey, ref.rowKey), key);
      if (keyA === undefined) return undefined;
      const coupling = await this.get(pair, 'a', keyA);
      return coupling?.keyB === key ? coupling : undefined;
    }
    const ref = couplingRef(pair, 'a', key);
    const row = await couplings.getVersioned(ref.partitionKey, ref.rowKey);
    return row && couplingOf(pair, row, key);
  }

  async getMany(pair: string, side: PairSideName, keys: readonly string[]): Promise<Map<string, Coupling>> {
    const { couplings } = await this.open();
    if (side === 'a') return this.couplingsByKeyA(couplings, pair, keys);
    const pointers = new Map<string, string>();
    await Promise.all(
      [...byPartition(pair, 'b', keys)].map(async ([partition, group]) => {
        const rows = await couplings.getMany(partition, group.map((g) => g.ref.rowKey));
        for (const { key, ref } of group) {
          const keyA = lookupTarget(rows.get(ref.rowKey), key);
          if (keyA !== undefined) pointers.set(key, keyA);
        }
      }),
    );
    const byKeyA = await this.couplingsByKeyA(couplings, pair, [...pointers.values()]);
    const found = new Map<string, Coupling>();
    for (const [keyB, keyA] of pointers) {
      const coupling = byKeyA.get(keyA);
      if (coupling?.keyB === keyB) found.set(keyB, coupling);
    }
    return found;
  }

  private async couplingsByKeyA(couplings: TableStore, pair: string, keys: readonly string[]): Promise<Map<string, Coupling>> {
    const found = new Map<string, Coupling>();
    await Promise.all(
      [...byPartition(pair, 'a', keys)].map(async ([partition, group]) => {
        const rows = await couplings.getManyVersioned(partition, group.map((g) => g.ref.rowKey));
        for (const { key, ref } of group) {
          const row = rows.get(ref.rowKey);
          const coupling = row && couplingOf(pair, row, key);
          if (coupling) found.set(key, coupling);
        }
      }),
    );
    return found;
  }

  async put(coupling: Coupling): Promise<void> {
    const { couplings } = await this.open();
    const ref = couplingRef(coupling.pair, 'a', coupling.keyA);
    const expected = coupling.version ?? null;
    // Read first: the old b key (to drop its lookup), and a stale version fails before any write.
    const current = await couplings.getVersioned(ref.partitionKey, ref.rowKey);
    if (expected === null && current) throw changed(coupling, 'is coupled already');
    if (expected !== null && current?.version !== expected) throw changed(coupling, current ? 'was written since it was read' : 'was removed since it was read');
    const oldKeyB = current && couplingOf(coupling.pair, current)?.keyB;
    if (oldKeyB !== coupling.keyB) {
      const lookup = lookupRow(coupling.pair, coupling.keyB, coupling.keyA);
      await couplings.upsert(lookup);
    }
    if (!(await couplings.putIf(couplingRow(coupling), expected))) throw changed(coupling, 'was written at the same time');
    if (oldKeyB !== undefined && oldKeyB !== coupling.keyB) await this.dropLookup(couplings, coupling.pair, oldKeyB, coupling.keyA);
  }

  /**
   * Deletes the b lookup `keyB → keyA` unless it points elsewhere by now. Should a writer have
   * coupled `keyA` to `keyB` again meanwhile (its lookup then looks like this one), it is written back.
   */
  private async dropLookup(couplings: TableStore, pair: string, keyB: string, keyA: string): Promise<void> {
    const ref = couplingRef(pair, 'b', keyB);
    const lookup = await couplings.getVersioned(ref.partitionKey, ref.rowKey);
    if (lookupTarget(lookup, keyB) !== keyA || !(await couplings.deleteIf(ref.partitionKey, ref.rowKey, lookup!.version))) return;
    if ((await this.get(pair, 'a', keyA))?.keyB === keyB) await couplings.upsert(lookupRow(pair, keyB, keyA));
  }

  async remove(pair: string, keyA: string): Promise<boolean> {
    const { couplings } = await this.open();
    const ref = couplingRef(pair, 'a', keyA);
    for (let attempt = 1; attempt <= REMOVE_ATTEMPTS; attempt++) {
      const current: VersionedRow | undefined = await couplings.getVersioned(ref.partitionKey, ref.rowKey);
      const coupling = current && couplingOf(pair, current, keyA);
      if (!coupling) return false;
      // The a row first: a crash then leaves only a lookup that no longer verifies.
      if (await couplings.deleteIf(ref.partitionKey, ref.rowKey, current!.version)) {
        await this.dropLookup(couplings, pair, coupling.keyB, keyA);
        return true;
      }
    }
    throw new TransientError(`coupling changed: pair "${pair}", a key ${JSON.stringify(keyA)} was rewritten during ${REMOVE_ATTEMPTS} attempts to remove it`);
  }

  async list(pair: string): Promise<Coupling[]> {
    const { couplings } = await this.open();
    const partitions = await Promise.all(couplingPartitions(pair).map((p) => couplings.queryPartitionVersioned(p)));
    return partitions
      .flat()
      .filter(isCouplingRow)
      .map((row) => couplingOf(pair, row)!)
      .sort(byPairAndKeyA);
  }

  async getConflict(pair: string, keyA: string): Promise<PairConflict | undefined> {
    const { conflicts } = await this.open();
    const ref = conflictRef(pair, keyA);
    const row = await conflicts.get(ref.partitionKey, ref.rowKey);
    return row && conflictOf(row, keyA);
  }

  async putConflict(conflict: PairConflict): Promise<void> {
    await (await this.open()).conflicts.upsert(conflictRow(conflict));
  }

  async removeConflict(pair: string, keyA: string): Promise<boolean> {
    const ref = conflictRef(pair, keyA);
    return (await this.open()).conflicts.delete(ref.partitionKey, ref.rowKey);
  }

  async listConflicts(pair?: string): Promise<PairConflict[]> {
    const { conflicts } = await this.open();
    const rows = pair === undefined ? await conflicts.list() : await conflicts.queryPartition(pair);
    return rows.map((row) => conflictOf(row)!).sort(byPairAndKeyA);
  }

  /** Both tables, created once (a failed creation is tried again on the next call). */
  private open(): Promise<{ couplings: TableStore; conflicts: TableStore }> {
    if (!this.tables) {
      const pending = (async () => ({ couplings: await this.storage.table(COUPLINGS_TABLE), conflicts: await this.storage.table(PAIR_CONFLICTS_TABLE) }))();
      pending.catch(() => (this.tables = undefined));
      this.tables = pending;
    }
    return this.tables;
  }
}

/** The coupling store of a storage account (the runtime's, the CLI's). */
export function createCouplingStore(storage: TableStorage): CouplingStore {
  return new TableCouplingStore(storage);
}
