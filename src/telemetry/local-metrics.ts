import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../platform/errors';
import type { Clock } from '../platform/clock';
import type { Logger } from './logger';
import type { Dimensions, MetricName, MetricPoint, Metrics, MetricsReader } from './metrics';
import { SecondRollup, type RolledUpPoint } from './second-rollup';
import { SeriesIndex } from './series-index';

export interface LocalMetricsOptions {
  /** Folder of the JSON-lines files (one per UTC day, `metrics-YYYY-MM-DD.jsonl`); none → memory only. */
  dir?: string;
  /** Time of each point and of the periodic flush. */
  clock: Clock;
  /**
   * How far back the rolled-up seconds kept in memory reach, ms. Default 3 900 000 (65 minutes:
   * the status page's last hour plus a margin).
   */
  retentionMs?: number;
  /**
   * Rolled-up points (seconds × series) kept in memory at most, a safety net should dimension
   * values explode; past it the oldest seconds go first. Default 200 000: 50 series in every
   * second of the default retention, some 25 MB (about 120 bytes a point, measured).
   */
  maxPoints?: number;
  /** How often the seconds that are over are appended to the file, ms. Default 5 000. */
  flushIntervalMs?: number;
  /** Where a failing file write is reported (once per failure streak). Default silent. */
  log?: Logger;
}

/**
 * The line written per rolled-up point:
 * `{"at":"…","name":"…","value":3,"count":2,"min":1,"max":2,"dimensions":{…}}`. `at` is the
 * start of the UTC second, `value` the sum of the values tracked in it, `count` how many; all
 * fields are always written.
 */
export interface MetricLine {
  at: string;
  name: MetricName;
  value: number;
  /** 1 when read from a line written before points were rolled up. */
  count: number;
  /** Absent in lines written before points were rolled up. */
  min?: number;
  max?: number;
  dimensions: Dimensions;
}

/**
 * The local metrics adapter: values are rolled up per (UTC second, name, dimensions) — a busy
 * host tracks two per message — and the last hour or so stays in memory, where the status page
 * reads it. Each second, once over, is appended to a JSON-lines file under the data folder, so a
 * local run can be analysed afterwards. Writes happen in the background; a write failure never
 * reaches the caller.
 */
export class LocalMetrics implements Metrics, MetricsReader {
  private readonly series = new SeriesIndex();
  private readonly memory: SecondRollup;
  /** Seconds not yet written: kept apart from `memory` so that neither its retention nor its cap can lose a line. */
  private readonly unwritten?: SecondRollup;
  private writing: Promise<void> = Promise.resolve();
  private failing = false;
  private readonly stopTimer?: () => void;

  constructor(private readonly options: LocalMetricsOptions) {
    this.memory = new SecondRollup({ retentionMs: options.retentionMs ?? 3_900_000, maxPoints: options.maxPoints ?? 200_000 });
    if (options.dir) {
      this.unwritten = new SecondRollup();
      this.stopTimer = options.clock.every(options.flushIntervalMs ?? 5_000, () => void this.flush());
    }
  }

  track(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    const ms = this.options.clock.now().getTime();
    // An invalid Date has no second to go in; dropping it keeps `track` from ever throwing.
    if (Number.isNaN(ms)) return;
    const series = this.series.lookup(name, dimensions);
    this.memory.add(ms, series, value);
    this.unwritten?.add(ms, series, value);
  }

  /** Rolled-up points (`at`: the start of their second) of the seconds starting at or after `since`. */
  pointsSince(since: Date, name?: MetricName): MetricPoint[] {
    return this.memory.pointsSince(since, name);
  }

  /** Sum of values of `name` whose dimensions include all of `filter`, over the seconds kept (tests, summaries). */
  sum(name: MetricName, filter: Dimensions = {}): number {
    return this.memory.sum(name, filter);
  }

  /** Appends the seconds that are over; the current one is written by a later flush or `close`. */
  flush(): Promise<void> {
    return this.write(this.unwritten?.take(this.options.clock.now().getTime()));
  }

  /** Stops the periodic flush and writes everything, the current second included. */
  async close(): Promise<void> {
    this.stopTimer?.();
    await this.write(this.unwritten?.take());
  }

  /** Writes are serialized, so lines keep their order. */
  private write(points: RolledUpPoint[] | undefined): Promise<void> {
    const dir = this.options.dir;
    if (!dir || !points || points.length === 0) return this.writing;
    this.writing = this.writing.then(() => this.append(dir, points));
    return this.writing;
  }

  private async append(dir: string, points: RolledUpPoint[]): Promise<void> {
    try {
      // Inside the try: an out-of-range time must not reject every later write.
      const byFile = metricLinesByFile(points);
      await fs.mkdir(dir, { recursive: true });
      for (const [file, lines] of byFile) await fs.appendFile(path.join(dir, file), lines.join('\n') + '\n', 'utf8');
      this.failing = false;
    } catch (err) {
      // Telemetry must not fail the work it observes: report once, drop the lines, go on.
      if (!this.failing) this.options.log?.warn(`metrics not written to ${dir}: ${errorMessage(err)}`);
      this.failing = true;
    }
  }
}

const DAY_MS = 86_400_000;

/** Lines by file name; points come in time order, many sharing their second and all their day. */
function metricLinesByFile(points: readonly RolledUpPoint[]): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  let second = NaN;
  let at = '';
  let dayStart = NaN;
  let lines: string[] = [];
  for (const p of points) {
    const ms = p.at.getTime();
    if (ms !== second) {
      at = p.at.toISOString();
      second = ms;
    }
    if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
      const file = metricsFileName(p.at);
      dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      lines = byFile.get(file) ?? [];
      byFile.set(file, lines);
    }
    lines.push(metricLine(at, p));
  }
  return byFile;
}

/** The JSON of a {@link MetricLine}, keys in its order, built without an intermediate object. */
function metricLine(at: string, p: RolledUpPoint): string {
  if (typeof p.name !== 'string' || typeof p.value !== 'number' || typeof p.dimensions !== 'object') {
    const line: MetricLine = { at, name: p.name, value: p.value, count: p.count, min: p.min, max: p.max, dimensions: p.dimensions };
    return JSON.stringify(line);
  }
  const { value, min, max } = p;
  return `{"at":"${at}","name":${JSON.stringify(p.name)},"value":${JSON.stringify(value)},"count":${p.count},"min":${JSON.stringify(min)},"max":${JSON.stringify(max)},"dimensions":${JSON.stringify(p.dimensions)}}`;
}

/** `metrics-YYYY-MM-DD.jsonl` of the UTC day of `at`. */
export function metricsFileName(at: Date): string {
  return `metrics-${at.toISOString().slice(0, 10)}.jsonl`;
}

/** Parses a metrics file's text; lines that are not metric lines are skipped. */
export function parseMetricLines(text: string): MetricLine[] {
  const lines: MetricLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const parsed = JSON.parse(raw) as Partial<MetricLine>;
      if (typeof parsed.name === 'string' && typeof parsed.value === 'number' && typeof parsed.at === 'string') {
        const line: MetricLine = { at: parsed.at, name: parsed.name, value: parsed.value, count: typeof parsed.count === 'number' ? parsed.count : 1, dimensions: parsed.dimensions ?? {} };
        if (typeof parsed.min === 'number') line.min = parsed.min;
        if (typeof parsed.max === 'number') line.max = parsed.max;
        lines.push(line);
      }
    } catch {
      // A line cut off by a crash: skip it.
    }
  }
  return lines;
}
