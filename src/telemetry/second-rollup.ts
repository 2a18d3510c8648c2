import type { Dimensions, MetricName, MetricPoint } from './metrics';
import type { Series } from './series-index';

/** What one series (name + dimensions) tracked during one UTC second adds up to. */
export interface RolledUpPoint extends MetricPoint {
  /** Values tracked (at least 1). */
  count: number;
  /** Smallest value tracked. */
  min: number;
  /** Largest value tracked. */
  max: number;
}

export interface SecondRollupOptions {
  /**
   * How far back from the newest second the roll-up reaches, ms; older seconds are dropped when a
   * newer one starts. Default `Infinity` (kept until taken).
   */
  retentionMs?: number;
  /**
   * Points kept at most, whatever their time: a safety net against a burst of distinct dimension
   * values. Past it the oldest seconds are dropped whole, the current one too if it alone is over.
   * Default `Infinity`.
   */
  maxPoints?: number;
}

interface Second {
  start: number;
  /** Shared by the second's points: one Date a second, not one a point. */
  at: Date;
  /** Points by series id, in the order their series first appeared in this second. */
  points: Map<number, RolledUpPoint>;
}

const SECOND_MS = 1000;

/**
 * Points rolled up per (UTC second, name, dimensions), as Application Insights pre-aggregates
 * metrics: adding a value is a comparison, a map lookup and a few additions, and memory grows
 * with seconds × series, not with the number of values tracked.
 */
export class SecondRollup {
  /** Ascending by start. */
  private seconds: Second[] = [];
  /** The second last added to: nearly every call hits it. */
  private recent?: Second;
  private size = 0;
  private readonly retentionMs: number;
  private readonly maxPoints: number;

  constructor(options: SecondRollupOptions = {}) {
    this.retentionMs = options.retentionMs ?? Infinity;
    this.maxPoints = options.maxPoints ?? Infinity;
  }

  /** Points held. */
  get pointCount(): number {
    return this.size;
  }

  /** Adds `value` at `ms` (epoch ms) to the point of `series` in that second. */
  add(ms: number, series: Series, value: number): void {
    const start = ms - (((ms % SECOND_MS) + SECOND_MS) % SECOND_MS);
    const second = start === this.recent?.start ? this.recent : this.secondAt(start);
    const point = second.points.get(series.id);
    if (point) {
      point.value += value;
      point.count++;
      if (value < point.min) point.min = value;
      if (value > point.max) point.max = value;
      return;
    }
    // The dimensions are the series' copy: points are copied again when read, never mutated.
    second.points.set(series.id, { at: second.at, name: series.name, value, count: 1, min: value, max: value, dimensions: series.dimensions });
    if (++this.size > this.maxPoints) this.dropOldest();
  }

  /** Copies of the points of seconds starting at or after `since`, oldest first; of one metric when `name` is given. */
  pointsSince(since: Date, name?: MetricName): RolledUpPoint[] {
    const result: RolledUpPoint[] = [];
    for (let i = this.indexOf(since.getTime()); i < this.seconds.length; i++) {
      for (const p of this.seconds[i].points.values()) if (name === undefined || p.name === name) result.push(copy(p));
    }
    return result;
  }

  /** Sum of the values of `name` whose dimensions include all of `filter`. */
  sum(name: MetricName, filter: Dimensions = {}): number {
    const wanted = Object.entries(filter);
    let total = 0;
    for (const second of this.seconds) {
      for (const p of second.points.values()) if (p.name === name && wanted.every(([k, v]) => p.dimensions[k] === v)) total += p.value;
    }
    return total;
  }

  /** Removes and returns the points of the seconds over by `nowMs` (all if omitted), oldest first. */
  take(nowMs = Infinity): RolledUpPoint[] {
    const end = nowMs === Infinity ? this.seconds.length : this.indexOf(nowMs - SECOND_MS + 1);
    const taken = this.seconds.splice(0, end);
    if (this.recent && taken.includes(this.recent)) this.recent = undefined;
    const points: RolledUpPoint[] = [];
    for (const second of taken) {
      this.size -= second.points.size;
      for (const p of second.points.values()) points.push(p);
    }
    return points;
  }

  /** The second starting at `start`, made when missing: on the slow path once per second. */
  private secondAt(start: number): Second {
    const seconds = this.seconds;
    const newest = seconds[seconds.length - 1];
    if (newest === undefined || start > newest.start) {
      const second: Second = { start, at: new Date(start), points: new Map() };
      seconds.push(second);
      this.dropBefore(start - this.retentionMs);
      return (this.recent = second);
    }
    // A value for an earlier second than the newest (the clock was set back): rare, so a search
    // and an insert are fine.
    const index = this.indexOf(start);
    if (seconds[index]?.start === start) return (this.recent = seconds[index]);
    const second: Second = { start, at: new Date(start), points: new Map() };
    seconds.splice(index, 0, second);
    return (this.recent = second);
  }

  /** Index of the first second starting at or after `ms`. */
  private indexOf(ms: number): number {
    let lo = 0;
    let hi = this.seconds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seconds[mid].start < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private dropBefore(cutoff: number): void {
    let n = 0;
    while (n < this.seconds.length - 1 && this.seconds[n].start < cutoff) this.size -= this.seconds[n++].points.size;
    if (n > 0) this.seconds.splice(0, n);
  }

  private dropOldest(): void {
    while (this.size > this.maxPoints && this.seconds.length > 0) {
      const dropped = this.seconds.shift() as Second;
      this.size -= dropped.points.size;
      if (dropped === this.recent) this.recent = undefined;
    }
  }
}

function copy(p: RolledUpPoint): RolledUpPoint {
  return { at: new Date(p.at.getTime()), name: p.name, value: p.value, count: p.count, min: p.min, max: p.max, dimensions: { ...p.dimensions } };
}
