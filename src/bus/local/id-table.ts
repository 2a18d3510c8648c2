/** A 32-bit hash of a queue's message id. Injectable so that tests can force collisions. */
export type IdHasher = (queueId: number, messageId: string) => number;

/**
 * Whether the `duplicate_log` row `logId` holds this queue's `messageId` with a window that ends
 * after `now`.
 */
export type IdCheck = (logId: number, queueId: number, messageId: string, now: number) => boolean;

const MIN_CAPACITY = 1024;
/** Most slots in use before the table grows (linear probing stays short below this). */
const MAX_LOAD = 0.7;
/**
 * How much the table grows. 1.5, not 2: while it grows the old and the new arrays both exist,
 * and at a million ids in the window a doubling table peaked at 25 MB (8.4 + 16.8), where this
 * one peaks at ~20 (8 + 12) and holds 12 after.
 */
const GROWTH = 1.5;
const TWO_TO_32 = 4294967296;
/** Log ids are stored as unsigned 32-bit offsets from a base (the ids within a window span far less). */
const MAX_OFFSET = 0xffff_ffff;

/**
 * The message ids a process knows to be within their duplicate window, in typed arrays: the
 * id's 32-bit hash and the `duplicate_log` row holding it, as an offset from a base: 8 bytes a
 * slot, 11-23 bytes an id depending on the fill (instead of the ~150-200 bytes of a `Map` keyed
 * by strings), and off the JS heap, so that the garbage collector never walks it.
 *
 * A hash is not the id: a slot whose hash matches is confirmed by reading the id and the end of
 * its window back from its log row ({@link IdCheck}), so two different ids never count as one and
 * an expired id never counts. That read happens for real duplicates (also expired ones), and by
 * chance about once in 2^(32 - log2 capacity) lookups. Open addressing with linear probing from
 * the hash's place in the table (hash / 2^32 · capacity: any capacity, not only powers of two). {@link prune} drops the slots of rows older than the first live row (log
 * ids grow with time), which also shrinks the table once a burst of ids left the window.
 */
export class IdTable {
  private capacity = MIN_CAPACITY;
  private hashes = new Uint32Array(MIN_CAPACITY);
  private offsets = new Uint32Array(MIN_CAPACITY);
  private base = -1;
  private used = 0;

  constructor(
    private readonly check: IdCheck,
    private readonly hasher: IdHasher = hashId,
  ) {}

  /** Ids stored, expired ones included until the next {@link prune}. */
  get size(): number {
    return this.used;
  }

  /** Bytes of the typed arrays (for tests and memory estimates). */
  get bytes(): number {
    return this.hashes.byteLength + this.offsets.byteLength;
  }

  /** Whether the queue's `messageId` is stored with a window that ends after `now`. */
  has(queueId: number, messageId: string, now: number): boolean {
    const hash = nonZero(this.hasher(queueId, messageId));
    for (let slot = this.slotOf(hash); ; slot = slot + 1 === this.capacity ? 0 : slot + 1) {
      const stored = this.hashes[slot];
      if (stored === 0) return false;
      if (stored === hash && this.check(this.base + this.offsets[slot], queueId, messageId, now)) return true;
    }
  }

  /** Stores the id with its log row. */
  add(queueId: number, messageId: string, logId: number): void {
    if (logId < this.base) this.rebuild(this.capacity, -Infinity, logId);
    else if (this.base >= 0 && logId - this.base > MAX_OFFSET) this.rebuild(this.capacity, logId - MAX_OFFSET);
    if (this.used + 1 > this.capacity * MAX_LOAD) this.rebuild(Math.ceil(this.capacity * GROWTH), -Infinity);
    if (this.base < 0) this.base = logId;
    this.put(nonZero(this.hasher(queueId, messageId)), logId - this.base);
  }

  /**
   * Drops the ids of log rows before `firstLiveLogId` (the oldest row still within its window:
   * every older one has expired); shrinks the table when few are left.
   */
  prune(firstLiveLogId: number): void {
    let live = 0;
    for (let slot = 0; slot < this.capacity; slot++) if (this.hashes[slot] !== 0 && this.base + this.offsets[slot] >= firstLiveLogId) live++;
    let capacity = MIN_CAPACITY;
    while (live > capacity * MAX_LOAD * 0.5) capacity = Math.ceil(capacity * GROWTH);
    this.rebuild(capacity, firstLiveLogId);
  }

  /**
   * Rehashes into `capacity` slots, keeping the ids of rows from `firstLogId` on, with offsets
   * from a new base (the oldest id kept, or `newBase` when given).
   */
  private rebuild(capacity: number, firstLogId: number, newBase?: number): void {
    const { hashes, offsets, base } = this;
    let smallest = newBase ?? Infinity;
    for (let slot = 0; slot < hashes.length; slot++) {
      if (hashes[slot] !== 0 && base + offsets[slot] >= firstLogId) smallest = Math.min(smallest, base + offsets[slot]);
    }
    this.base = Number.isFinite(smallest) ? smallest : -1;
    this.capacity = capacity;
    this.hashes = new Uint32Array(capacity);
    this.offsets = new Uint32Array(capacity);
    this.used = 0;
    for (let slot = 0; slot < hashes.length; slot++) {
      const logId = base + offsets[slot];
      if (hashes[slot] === 0 || logId < firstLogId) continue;
      if (logId - this.base > MAX_OFFSET) continue; // older than any window can reach: expired
      this.put(hashes[slot], logId - this.base);
    }
  }

  /** The hash's first slot: its place in [0, 2^32) scaled to the capacity. */
  private slotOf(hash: number): number {
    return Math.floor((hash / TWO_TO_32) * this.capacity);
  }

  private put(hash: number, offset: number): void {
    let slot = this.slotOf(hash);
    while (this.hashes[slot] !== 0) slot = slot + 1 === this.capacity ? 0 : slot + 1;
    this.hashes[slot] = hash;
    this.offsets[slot] = offset;
    this.used++;
  }
}

/** 0 marks an empty slot. */
const nonZero = (hash: number): number => hash >>> 0 || 1;

/** FNV-1a over the UTF-16 code units, seeded with the queue id, finished with MurmurHash3's avalanche. */
export function hashId(queueId: number, messageId: string): number {
  let h = 0x811c9dc5 ^ queueId;
  for (let i = 0; i < messageId.length; i++) h = Math.imul(h ^ messageId.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
