/** A 32-bit hash of a queue's message id. Injectable so that tests can force collisions. */
export type IdHasher = (queueId: number, messageId: string) => number;

/** Whether the `duplicate_log` row `logId` holds this queue's `messageId`. */
export type IdCheck = (logId: number, queueId: number, messageId: string) => boolean;

const MIN_CAPACITY = 1024;
/** Most slots in use before the table doubles (linear probing stays short below this). */
const MAX_LOAD = 0.7;

/**
 * The message ids a process knows to be within their duplicate window, in typed arrays: the
 * id's 32-bit hash, the end of its window and the `duplicate_log` row holding it: 20 bytes a
 * slot, 29-57 bytes an id depending on the fill (instead of the ~150-200 bytes of a `Map` keyed
 * by strings), and off the JS heap, so that the garbage collector never walks it.
 *
 * A hash is not the id: a slot whose hash matches is confirmed by reading the id back from its
 * log row ({@link IdCheck}), so two different ids never count as one. That read happens for
 * real duplicates, and by chance about once in 2^(32 - log2 capacity) lookups.
 * Open addressing with linear probing from the hash's low bits; expired slots are dropped when
 * {@link prune} rebuilds the table, which also shrinks it once a burst of ids left the window.
 */
export class IdTable {
  private mask = MIN_CAPACITY - 1;
  private hashes = new Uint32Array(MIN_CAPACITY);
  private untils = new Float64Array(MIN_CAPACITY);
  private logIds = new Float64Array(MIN_CAPACITY);
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
    return this.hashes.byteLength + this.untils.byteLength + this.logIds.byteLength;
  }

  /** Whether the queue's `messageId` is stored with a window that ends after `now`. */
  has(queueId: number, messageId: string, now: number): boolean {
    const hash = nonZero(this.hasher(queueId, messageId));
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.hashes[slot];
      if (stored === 0) return false;
      if (stored === hash && this.untils[slot] > now && this.check(this.logIds[slot], queueId, messageId)) return true;
    }
  }

  /** Stores the id with the end of its window and its log row. */
  add(queueId: number, messageId: string, until: number, logId: number): void {
    if (this.used + 1 > (this.mask + 1) * MAX_LOAD) this.rebuild(2 * (this.mask + 1), -Infinity);
    this.put(nonZero(this.hasher(queueId, messageId)), until, logId);
  }

  /** Drops the ids whose window ended at or before `now`; shrinks the table when few are left. */
  prune(now: number): void {
    let live = 0;
    for (let slot = 0; slot <= this.mask; slot++) if (this.hashes[slot] !== 0 && this.untils[slot] > now) live++;
    let capacity = MIN_CAPACITY;
    while (live > capacity * MAX_LOAD * 0.5) capacity *= 2;
    this.rebuild(capacity, now);
  }

  /** Rehashes into `capacity` slots, keeping the ids whose window ends after `now`. */
  private rebuild(capacity: number, now: number): void {
    const { hashes, untils, logIds } = this;
    this.mask = capacity - 1;
    this.hashes = new Uint32Array(capacity);
    this.untils = new Float64Array(capacity);
    this.logIds = new Float64Array(capacity);
    this.used = 0;
    for (let slot = 0; slot < hashes.length; slot++) {
      if (hashes[slot] !== 0 && untils[slot] > now) this.put(hashes[slot], untils[slot], logIds[slot]);
    }
  }

  private put(hash: number, until: number, logId: number): void {
    let slot = hash & this.mask;
    while (this.hashes[slot] !== 0) slot = (slot + 1) & this.mask;
    this.hashes[slot] = hash;
    this.untils[slot] = until;
    this.logIds[slot] = logId;
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
