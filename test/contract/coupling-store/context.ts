import { randomUUID } from 'node:crypto';
import type { Coupling, CouplingStore, PairConflict } from '../../../src/twoway/coupling-store';
import type { TableStorage } from '../../../src/storage/table-store';

/** A store under test and the table storage beneath it (to leave what a crash would leave). */
export interface OpenedCouplingStore {
  store: CouplingStore;
  storage: TableStorage;
  close(): Promise<void>;
}

export interface ContractContext {
  /** The suite's store (opened once per suite). */
  opened(): OpenedCouplingStore;
}

/** A pair name of its own per case: cases share the tables, never a pair. */
export function uniquePair(): string {
  return `pair-${randomUUID().slice(0, 8)}`;
}

/** A coupling with a field or two, for `pair`. */
export function coupling(pair: string, keyA: string, keyB: string, overrides: Partial<Coupling> = {}): Coupling {
  return {
    pair,
    keyA,
    keyB,
    hashA: { name: `ha-${keyA}`, status: 'h1' },
    hashB: { name: `hb-${keyB}`, status: 'h2' },
    trackerA: '2026-12-01T10:00:00.000Z',
    trackerB: null,
    syncedAt: '2026-12-01T10:00:01.000Z',
    ...overrides,
  };
}

/** A parked conflict of `pair`. */
export function conflict(pair: string, keyA: string, overrides: Partial<PairConflict> = {}): PairConflict {
  return {
    pair,
    keyA,
    keyB: `b-${keyA}`,
    fields: ['name'],
    a: { values: { name: 'Zürich AG', nested: { list: [1, 'two', null] } }, tracker: '2026-12-01T10:00:00.000Z' },
    b: { values: { name: 'Zurich Ltd' }, tracker: null },
    detectedAt: '2026-12-01T10:05:00.000Z',
    ...overrides,
  };
}

/** What a promise rejected with (an Error when it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (err: unknown) => err,
  );
}
