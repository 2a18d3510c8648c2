import { IdSlots } from './id-slots';

/** A 32-bit hash of a queue's message id. Injectable so that tests can force collisions. */
export type IdHasher = (queueId: number, messageId: string) => number;

/**
 * Whether the `duplicate_log` row `logId` holds this queue's `messageId` with a window that ends
 * after `now`.
 */
export type IdCheck = (logId: number, queueId: number, messageId: string, now: number) => boolean;

/**
 * Segments, chosen by a hash's top 4 bits, each growing on its own: while one grows, its old and
 * new arrays both exist, so the table's peak is its size plus a sixteenth, not 1.5 times it (at a
 * million ids in the window: ~12.5 MB instead of ~20).
 */
const SEGMENTS = 16;
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
 * chance about once in 2^(32 - log2 capacity) lookups. {@link prune} drops the slots of rows
 * older than the first live row (log ids grow with time), which also shrinks the table once a
 * burst of ids left the window. The slots live in {@link IdSlots} segments.
 */
export class IdTable {
  private readonly segments = Array.from({ length: SEGMENTS }, () => new IdSlots());
  private base = -1;

  constructor(
    private readonly check: IdCheck,
    private readonly hasher: IdHasher = hashId,
  ) {}

  /** Ids stored, expired ones included until the next {@link prune}. */
  get size(): number {
    return this.segments.reduce((sum, segment) => sum + segment.used, 0);
  }

  /** Bytes of the typed arrays (for tests and memory estimates). */
  get bytes(): number {
    return this.segments.reduce((sum, segment) => sum + segment.hashes.byteLength + segment.offsets.byteLength, 0);
  }

  /** Whether the queue's `messageId` is stored with a window that ends after `now`. */
  has(queueId: number, messageId: string, now: number): boolean {
    const hash = nonZero(this.hasher(queueId, messageId));
    const segment = this.segments[hash >>> 28];
    for (let slot = segment.slotOf(hash); ; slot = segment.next(slot)) {
      const stored = segment.hashes[slot];
      if (stored === 0) return false;
      if (stored === hash && this.check(this.base + segment.offsets[slot], queueId, messageId, now)) return true;
    }
  }

  /** Stores the id with its log row. */
  add(queueId: number, messageId: string, logId: number): void {
    if (logId < this.base) this.rebuild(-Infinity, logId);
    else if (this.base >= 0 && logId - this.base > MAX_OFFSET) this.rebuild(logId - MAX_OFFSET);
    if (this.base < 0) this.base = logId;
    const hash = nonZero(this.hasher(queueId, messageId));
    const segment = this.segments[hash >>> 28];
    if (!segment.hasRoom) segment.grow(this.base);
    segment.put(hash, logId - this.base);
  }

  /**
   * Drops the ids of log rows before `firstLiveLogId` (the oldest row still within its window:
   * every older one has expired); shrinks segments that kept few.
   */
  prune(firstLiveLogId: number): void {
    this.rebuild(firstLiveLogId, undefined, true);
  }

  /**
   * Rehashes every segment, keeping the ids of rows from `firstLogId` on, with offsets from a new
   * base (the oldest id kept, or `newBase` when given); resized to their live ids when `resize`.
   */
  private rebuild(firstLogId: number, newBase?: number, resize = false): void {
    const { base, segments } = this;
    let smallest = newBase ?? Infinity;
    for (const segment of segments) smallest = Math.min(smallest, segment.smallestFrom(base, firstLogId));
    this.base = Number.isFinite(smallest) ? smallest : -1;
    for (const segment of segments) {
      const capacity = resize ? IdSlots.capacityFor(segment.countFrom(base, firstLogId)) : segment.capacity;
      segment.rebuild(base, this.base, firstLogId, capacity);
    }
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
