import type { SeededRandom } from './seeded-random';
import { sleep, type ItemValues, type SourceDb, type WriteOp } from './source-db';

export interface WorkloadOptions {
  /** Pause between two transactions, ms: uniform in [min, max]. Default [20, 80]. */
  pauseMs?: [number, number];
  /** Share of transactions committed late. Default 0.15. */
  lateShare?: number;
  /** Longest late commit, ms (the jobs' lookback must exceed it). Default 2000. */
  maxLateMs?: number;
  /** Rows of a bulk update (all with one timestamp): uniform in [min, max]. Default [40, 150]. */
  bulkRows?: [number, number];
  /** Share of transactions that insert items of a category written only later. Default 0.03. */
  orphanShare?: number;
  /** How much later that category is written, ms: uniform in [min, max]. Default [500, 3000]. */
  orphanDelayMs?: [number, number];
}

export interface WorkloadStats {
  transactions: number;
  late: number;
  inserted: number;
  /** Items inserted before their category existed (parked or retried at the target). */
  orphans: number;
  updated: number;
  deleted: number;
  bulkUpdates: number;
  categories: number;
}

const WORDS = ['alpha', 'Beta', 'gamma', 'Delta', 'straße', 'Øresund', 'omega', 'kappa', 'Zeta', 'éclair'];

/**
 * A seeded random workload on the source: item inserts, updates, deletes (with tombstones),
 * bulk updates of many rows sharing one timestamp, new categories that new items refer to at
 * once, items written before their category ("orphans" until it arrives), and a share of
 * transactions committed late. It runs while the host detects, so rows change during detection
 * runs.
 *
 * The seed fixes the sequence of transactions (kinds, sizes, values, lateness); which existing
 * rows an update or delete picks can vary with timing (rows still reserved by a late commit are
 * skipped). Rows a transaction touches are reserved until it commits, so no two transactions
 * change one row at the same time, and (SQLite) a row's timestamps strictly increase: a row
 * changed twice within one timestamp tick cannot be told apart by any timestamp watermark, so
 * that is not generated (see docs/reliability.md).
 */
export class Workload {
  readonly stats: WorkloadStats = { transactions: 0, late: 0, inserted: 0, orphans: 0, updated: 0, deleted: 0, bulkUpdates: 0, categories: 0 };
  private readonly categories: string[] = [];
  /** Live item id → the stamp of its last write (SQLite), '' when the server stamps. */
  private readonly items = new Map<string, string>();
  private readonly reserved = new Set<string>();
  private readonly background = new Set<Promise<void>>();
  private nextItem = 1;
  private nextCategory = 1;
  private failure: unknown;

  constructor(
    private readonly db: SourceDb,
    private readonly random: SeededRandom,
    private readonly options: WorkloadOptions = {},
  ) {}

  /** Writes `categories` categories and `items` items (one transaction each kind), not late. */
  async preload(categories: number, items: number): Promise<void> {
    for (let i = 0; i < categories; i++) await this.transaction(this.newCategory(), 0);
    for (let i = 0; i < items; i += 100) await this.transaction(this.newItems(Math.min(100, items - i)), 0);
  }

  /** Runs transactions until `signal` aborts or `durationMs` passed, then waits for late commits. */
  async run(durationMs: number, signal?: AbortSignal): Promise<WorkloadStats> {
    const end = Date.now() + durationMs;
    const [pauseMin, pauseMax] = this.options.pauseMs ?? [20, 80];
    while (Date.now() < end && !signal?.aborted && this.failure === undefined) {
      if (this.random.chance(this.options.orphanShare ?? 0.03) && this.categories.length > 0) {
        this.track(this.orphans());
        await sleep(this.random.int(pauseMin, pauseMax));
        continue;
      }
      const op = this.nextOp();
      if (op) {
        const late = this.random.chance(this.options.lateShare ?? 0.15) ? this.random.int(200, this.options.maxLateMs ?? 2000) : 0;
        if (late > 0) this.track(this.transaction(op, late));
        else await this.transaction(op, 0);
      }
      await sleep(this.random.int(pauseMin, pauseMax));
    }
    await this.settled();
    return this.stats;
  }

  /** Resolves when every late transaction committed; rethrows the first write failure. */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
    if (this.failure !== undefined) throw this.failure;
  }

  private nextOp(): WriteOp | undefined {
    const roll = this.random.next();
    if (roll < 0.04 || this.categories.length === 0) return this.newCategory();
    if (roll < 0.4) return this.newItems(this.random.int(1, 5));
    if (roll < 0.72) return this.updates(this.random.int(1, 3));
    if (roll < 0.77) {
      const [min, max] = this.options.bulkRows ?? [40, 150];
      return this.updates(this.random.int(min, max), true);
    }
    return this.deletes(this.random.int(1, 2));
  }

  /** Items of a category that is written only `orphanDelayMs` later (it is not offered to other writes before). */
  private async orphans(): Promise<void> {
    // Every random choice is drawn before the first await, so the seed alone decides them.
    const category = this.newCategory();
    const items = this.newItems(this.random.int(1, 3), category.id);
    const [min, max] = this.options.orphanDelayMs ?? [500, 3000];
    const delay = this.random.int(min, max);
    this.stats.orphans += items.rows.length;
    await this.transaction(items, 0);
    await sleep(delay);
    await this.transaction(category, 0);
  }

  private newCategory(): WriteOp & { kind: 'insertCategory' } {
    const id = `C-${String(this.nextCategory++).padStart(4, '0')}`;
    return { kind: 'insertCategory', id, name: `  ${this.random.pick(WORDS)} ${id} ` };
  }

  private values(category?: string): ItemValues {
    // New items often refer to the newest category, which may not have reached the target yet.
    category ??= this.random.chance(0.3) ? this.categories[this.categories.length - 1] : this.random.pick(this.categories);
    const note = this.random.next();
    return {
      category_id: category,
      name: `${this.random.pick(WORDS)} ${this.random.int(1, 99999)}`,
      qty: this.random.int(-5, 1000),
      note: note < 0.15 ? null : note < 0.25 ? '   ' : ` ${this.random.pick(WORDS)} ${this.random.int(1, 999)} `,
    };
  }

  private newItems(n: number, category?: string): WriteOp & { kind: 'insertItems' } {
    const rows = Array.from({ length: n }, () => ({ id: `I-${String(this.nextItem++).padStart(6, '0')}`, ...this.values(category) }));
    return { kind: 'insertItems', rows };
  }

  /** Live, unreserved items whose last stamp is older than `stamp` (when the workload stamps). */
  private candidates(stamp: string | undefined): string[] {
    return [...this.items].filter(([id, last]) => !this.reserved.has(id) && (stamp === undefined || last < stamp)).map(([id]) => id);
  }

  private updates(n: number, bulk = false): WriteOp | undefined {
    const ids = this.random.sample(this.candidates(this.db.stamp()), n);
    if (ids.length === 0) return undefined;
    if (bulk) this.stats.bulkUpdates++;
    return { kind: 'updateItems', rows: ids.map((id) => ({ id, ...this.values() })) };
  }

  private deletes(n: number): WriteOp | undefined {
    const ids = this.random.sample(this.candidates(this.db.stamp()), n);
    return ids.length === 0 ? undefined : { kind: 'deleteItems', ids };
  }

  private touched(op: WriteOp): string[] {
    if (op.kind === 'insertCategory') return [];
    return op.kind === 'deleteItems' ? op.ids : op.rows.map((r) => r.id);
  }

  private async transaction(op: WriteOp, lateMs: number): Promise<void> {
    const stamp = this.db.stamp();
    const ids = this.touched(op);
    for (const id of ids) this.reserved.add(id);
    if (op.kind === 'deleteItems') for (const id of ids) this.items.delete(id);
    this.stats.transactions++;
    if (lateMs > 0) this.stats.late++;
    try {
      await this.db.write(op, stamp, lateMs);
    } finally {
      for (const id of ids) this.reserved.delete(id);
    }
    switch (op.kind) {
      case 'insertCategory':
        this.categories.push(op.id);
        this.stats.categories++;
        return;
      case 'insertItems':
      case 'updateItems':
        for (const row of op.rows) this.items.set(row.id, stamp ?? '');
        this.stats[op.kind === 'insertItems' ? 'inserted' : 'updated'] += op.rows.length;
        return;
      case 'deleteItems':
        this.stats.deleted += op.ids.length;
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => {
      this.failure ??= err;
    });
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }
}
