/**
 * A small seeded PRNG (mulberry32): the same seed gives the same workload, so a failing run is
 * reproduced by its seed (`HIGHWATER_SEED=<n>`). Not for anything but tests.
 */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  /**
   * Up to `n` distinct items (fewer when the list is shorter), in random order. Always draws `n`
   * numbers, so the choices after it do not depend on how long the list was.
   */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    const out: T[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.next();
      if (copy.length > 0) out.push(copy.splice(Math.floor(r * copy.length), 1)[0]);
    }
    return out;
  }

  /** A random child generator, e.g. one per round, so that rounds do not shift each other's choices. */
  fork(): SeededRandom {
    return new SeededRandom(Math.floor(this.next() * 2 ** 32));
  }
}

/**
 * The seed of a run: `HIGHWATER_SEED` when set (to reproduce a failure), else a fresh random one.
 * Either way the test prints it.
 */
export function runSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HIGHWATER_SEED;
  if (raw !== undefined && raw.trim() !== '') {
    const seed = Number(raw);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`HIGHWATER_SEED must be a non-negative integer, got "${raw}"`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}

/** `n` seeds: the first is {@link runSeed} (so `HIGHWATER_SEED` replays it), the others fresh. */
export function runSeeds(n: number, env: NodeJS.ProcessEnv = process.env): number[] {
  return Array.from({ length: n }, (_, i) => runSeed(i === 0 ? env : {}));
}
