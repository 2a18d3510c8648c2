import type { SourceKind } from './sync-config';

/** What the workload writes to an item (all fields, on insert and on update). */
export interface ItemValues {
  category_id: string;
  name: string;
  qty: number;
  note: string | null;
}

/** One source transaction of the workload. Every row it touches gets the same change timestamp. */
export type WriteOp =
  | { kind: 'insertCategory'; id: string; name: string }
  | { kind: 'insertItems'; rows: Array<{ id: string } & ItemValues> }
  | { kind: 'updateItems'; rows: Array<{ id: string } & ItemValues> }
  /** Deletes the rows and writes their tombstones (`deleted_items`). */
  | { kind: 'deleteItems'; ids: string[] };

/** The source as it stands, timestamps as the SQL connector reads them (ISO 8601 UTC text). */
export interface SourceState {
  categories: Map<string, { name: string; modified_at: string }>;
  items: Map<string, ItemValues & { modified_at: string }>;
  /** Deleted item id → `deleted_at`. */
  tombstones: Map<string, string>;
  /**
   * Read through an outbox: `aggregate type \0 key` → the newest outbox id of the record (its final
   * change's tracker); tracked by xmin (`postgres-xmin`): `table \0 key` → the row's transaction id.
   */
  outboxIds?: Map<string, string>;
}

/** A source database the workload writes and the harness reads back. */
export interface SourceDb {
  readonly kind: SourceKind;
  /**
   * SQLite: the change timestamp a write begun now gets (the workload's clock; the workload keeps
   * every row's timestamps strictly increasing). PostgreSQL: undefined — the server stamps
   * `now()`, the start of the transaction.
   */
  stamp(): string | undefined;
  /**
   * Writes `op` in one transaction. With `lateMs` > 0 the change becomes visible that much after
   * its timestamp was taken (a transaction committed late): SQLite takes `at` first and writes
   * later; PostgreSQL writes at once and commits later.
   */
  write(op: WriteOp, at: string | undefined, lateMs: number): Promise<void>;
  readState(): Promise<SourceState>;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
