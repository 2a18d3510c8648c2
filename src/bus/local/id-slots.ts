/** Fewest slots a segment keeps. */
const MIN_CAPACITY = 64;
/** Most slots in use before a segment grows (linear probing stays short below this). */
const MAX_LOAD = 0.7;
/**
 * How much a segment grows. 1.5, not 2: while it grows the old and the new arrays both exist;
 * a smaller step keeps that overlap and the unused slots after it small.
 */
const GROWTH = 1.5;
/** The low 28 bits of a hash place it within its segment (the high 4 choose the segment). */
const TWO_TO_28 = 268435456;
const LOW_28 = 0x0fff_ffff;

/**
 * One segment of an {@link IdTable}: open addressing with linear probing over two typed arrays,
 * the id's 32-bit hash (0 = empty) and its log row as an offset from the table's base. The
 * first slot tried is the hash's place in the segment (low bits / 2^28 · capacity), so any
 * capacity works, not only powers of two.
 */
export class IdSlots {
  capacity = MIN_CAPACITY;
  hashes = new Uint32Array(MIN_CAPACITY);
  offsets = new Uint32Array(MIN_CAPACITY);
  used = 0;

  /** Whether one more id fits without passing {@link MAX_LOAD}. */
  get hasRoom(): boolean {
    return this.used + 1 <= this.capacity * MAX_LOAD;
  }

  /** The first slot to probe for `hash`. */
  slotOf(hash: number): number {
    return Math.floor(((hash & LOW_28) / TWO_TO_28) * this.capacity);
  }

  /** The slot after `slot`, wrapping round. */
  next(slot: number): number {
    return slot + 1 === this.capacity ? 0 : slot + 1;
  }

  put(hash: number, offset: number): void {
    let slot = this.slotOf(hash);
    while (this.hashes[slot] !== 0) slot = this.next(slot);
    this.hashes[slot] = hash;
    this.offsets[slot] = offset;
    this.used++;
  }

  /** Ids of log rows from `firstLogId` on (`base` is the current base). */
  countFrom(base: number, firstLogId: number): number {
    let live = 0;
    for (let slot = 0; slot < this.capacity; slot++) if (this.hashes[slot] !== 0 && base + this.offsets[slot] >= firstLogId) live++;
    return live;
  }

  /** The smallest log row from `firstLogId` on, or Infinity. */
  smallestFrom(base: number, firstLogId: number): number {
    let smallest = Infinity;
    for (let slot = 0; slot < this.capacity; slot++) {
      if (this.hashes[slot] !== 0 && base + this.offsets[slot] >= firstLogId) smallest = Math.min(smallest, base + this.offsets[slot]);
    }
    return smallest;
  }

  /**
   * Rehashes into `capacity` slots (the current one when not given), keeping the ids of log rows
   * from `firstLogId` on whose offset from `newBase` fits in 32 bits.
   */
  rebuild(base: number, newBase: number, firstLogId: number, capacity = this.capacity): void {
    const { hashes, offsets } = this;
    this.capacity = capacity;
    this.hashes = new Uint32Array(capacity);
    this.offsets = new Uint32Array(capacity);
    this.used = 0;
    for (let slot = 0; slot < hashes.length; slot++) {
      const logId = base + offsets[slot];
      if (hashes[slot] === 0 || logId < firstLogId) continue;
      if (logId - newBase > 0xffff_ffff) continue; // older than any window can reach: expired
      this.put(hashes[slot], logId - newBase);
    }
  }

  /** Rehashes into a segment {@link GROWTH} times larger. */
  grow(base: number): void {
    this.rebuild(base, base, -Infinity, Math.ceil(this.capacity * GROWTH));
  }

  /** The capacity for `live` ids after a prune: half full at most, so that it need not grow at once. */
  static capacityFor(live: number): number {
    let capacity = MIN_CAPACITY;
    while (live > capacity * MAX_LOAD * 0.5) capacity = Math.ceil(capacity * GROWTH);
    return capacity;
  }
}
