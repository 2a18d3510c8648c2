import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../model/errors';
import type { Clock } from '../model/clock';
import type { Logger } from './logger';
import { InMemoryMetrics, type Dimensions, type MetricName, type MetricPoint, type Metrics, type MetricsReader } from './metrics';

export interface LocalMetricsOptions {
  /** Folder of the JSON-lines files (one per UTC day, `metrics-YYYY-MM-DD.jsonl`); none → memory only. */
  dir?: string;
  /** Time of each point and of the periodic flush. */
  clock: Clock;
  /** Points kept in memory. Default 100 000 (about a day of a busy local host). */
  maxPoints?: number;
  /** How often buffered lines are appended to the file, ms. Default 5 000. */
  flushIntervalMs?: number;
  /** Where a failing file write is reported (once per failure streak). Default silent. */
  log?: Logger;
}

/** The line written per point: `{"at":"…","name":"…","value":1,"dimensions":{…}}`. */
export interface MetricLine {
  at: string;
  name: MetricName;
  value: number;
  dimensions: Dimensions;
}

/**
 * The local metrics adapter: points stay in memory (the status page reads them) and are appended
 * to a JSON-lines file under the data folder, so a local run can be analysed afterwards. Writes
 * are buffered and appended in the background; a write failure never reaches the caller.
 */
export class LocalMetrics implements Metrics, MetricsReader {
  private readonly memory: InMemoryMetrics;
  private buffer: MetricPoint[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failing = false;
  private readonly stopTimer?: () => void;

  constructor(private readonly options: LocalMetricsOptions) {
    this.memory = new InMemoryMetrics(options.maxPoints ?? 100_000, () => options.clock.now());
    if (options.dir) this.stopTimer = options.clock.every(options.flushIntervalMs ?? 5_000, () => void this.flush());
  }

  track(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    this.memory.track(name, value, { ...dimensions });
    if (this.options.dir) this.buffer.push(this.memory.points[this.memory.points.length - 1]);
  }

  pointsSince(since: Date, name?: MetricName): MetricPoint[] {
    return this.memory.pointsSince(since, name);
  }

  /** Sum of values of `name` whose dimensions include all of `filter` (tests, summaries). */
  sum(name: MetricName, filter: Dimensions = {}): number {
    return this.memory.sum(name, filter);
  }

  /** Appends what is buffered; writes are serialized so lines keep their order. */
  flush(): Promise<void> {
    const dir = this.options.dir;
    if (!dir || this.buffer.length === 0) return this.writing;
    const points = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() => this.append(dir, points));
    return this.writing;
  }

  /** Stops the periodic flush and writes the rest. */
  async close(): Promise<void> {
    this.stopTimer?.();
    await this.flush();
  }

  private async append(dir: string, points: MetricPoint[]): Promise<void> {
    // Points come mostly in time order: the file changes about once a day and many points share
    // their second, so both are worked out again only when they change, not per point (a busy
    // host tracks two points per message, and path.join + toISOString were most of their cost).
    const byFile = new Map<string, string[]>();
    const iso = new IsoTimestamps();
    let dayStart = NaN;
    let lines: string[] = [];
    for (const p of points) {
      const at = p.at.getTime();
      if (!(at >= dayStart && at < dayStart + DAY_MS)) {
        const file = path.join(dir, metricsFileName(p.at));
        dayStart = at - mod(at, DAY_MS);
        lines = byFile.get(file) ?? [];
        byFile.set(file, lines);
      }
      lines.push(metricLine(iso.format(p.at), p));
    }
    try {
      await fs.mkdir(dir, { recursive: true });
      for (const [file, fileLines] of byFile) await fs.appendFile(file, fileLines.join('\n') + '\n', 'utf8');
      this.failing = false;
    } catch (err) {
      // Telemetry must not fail the work it observes: report once, drop the lines, go on.
      if (!this.failing) this.options.log?.warn(`metrics not written to ${dir}: ${errorMessage(err)}`);
      this.failing = true;
    }
  }
}

const DAY_MS = 86_400_000;

const mod = (a: number, b: number) => ((a % b) + b) % b;

/** The JSON of a {@link MetricLine}, keys in its order, built without an intermediate object. */
function metricLine(at: string, p: MetricPoint): string {
  if (typeof p.name !== 'string' || typeof p.value !== 'number' || typeof p.dimensions !== 'object') {
    const line: MetricLine = { at, name: p.name, value: p.value, dimensions: p.dimensions };
    return JSON.stringify(line);
  }
  return `{"at":"${at}","name":${JSON.stringify(p.name)},"value":${JSON.stringify(p.value)},"dimensions":${JSON.stringify(p.dimensions)}}`;
}

/** `Date#toISOString`, formatting each second once: the milliseconds are appended to its text. */
class IsoTimestamps {
  private second = NaN;
  private prefix = '';

  format(at: Date): string {
    const ms = at.getTime();
    const millis = mod(ms, 1000);
    if (ms - millis !== this.second) {
      const iso = at.toISOString(); // throws RangeError for an invalid date, as before
      this.second = ms - millis;
      this.prefix = iso.slice(0, iso.length - 4);
      return iso;
    }
    return `${this.prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  }
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
        lines.push({ at: parsed.at, name: parsed.name, value: parsed.value, dimensions: parsed.dimensions ?? {} });
      }
    } catch {
      // A line cut off by a crash: skip it.
    }
  }
  return lines;
}
