import { promises as fs } from 'node:fs';
import path from 'node:path';
import { metricsFileName, parseMetricLines } from '../../telemetry/local-metrics';
import { METRIC_NAMES, type MetricName, type MetricPoint } from '../../telemetry/metrics';

/** The metrics the status page's "Last hour" counts. */
const CHARTED: ReadonlySet<MetricName> = new Set([METRIC_NAMES.messagesProcessed, METRIC_NAMES.changesDetected]);

/** Bytes read from a file's end per step while looking for the window's start. */
const CHUNK_BYTES = 256 * 1024;

export interface MetricsHistoryOptions {
  /** The metrics folder (`<dataDir>/metrics`, see `create-telemetry.ts`). */
  dir: string;
  /** When this host started: its own points are in memory, the file is read only before this. */
  startedAt: Date;
  /** How far back before `startedAt` to read, ms. Default 3 600 000 (the page's hour). */
  windowMs?: number;
}

/**
 * The last hour before this host started, from the metrics files an earlier run wrote. The local
 * metrics adapter keeps only what this process tracked in memory, so after a restart "Last hour"
 * said 0 although messages were processed minutes before. Read once (what lies before the start
 * does not change) and from each file's end: a day's file can be large, the hour is at its tail.
 */
export class MetricsFileHistory {
  private loading?: Promise<MetricPoint[]>;

  constructor(private readonly options: MetricsHistoryOptions) {}

  /** `MessagesProcessed` and `ChangesDetected` points in [startedAt − window, startedAt), oldest first. Never rejects. */
  points(): Promise<MetricPoint[]> {
    this.loading ??= this.load().catch(() => []);
    return this.loading;
  }

  private async load(): Promise<MetricPoint[]> {
    // Lines are rolled up per second and stamped with the second's start: the second this host
    // started in holds its own first points too (in memory as well), so the file is read only
    // up to that second's start. An earlier run's points in that same second are not counted.
    const end = Math.floor(this.options.startedAt.getTime() / 1000) * 1000;
    const since = end - (this.options.windowMs ?? 3_600_000);
    // The window spans at most two UTC days: the file of its start's day and of its end's.
    const files = [...new Set([metricsFileName(new Date(since)), metricsFileName(new Date(end))])];
    const points: MetricPoint[] = [];
    for (const file of files) {
      for (const line of await readTailFrom(path.join(this.options.dir, file), since)) {
        const at = Date.parse(line.at);
        if (at >= since && at < end && CHARTED.has(line.name)) points.push({ name: line.name, value: line.value, dimensions: line.dimensions, at: new Date(at), count: line.count });
      }
    }
    return points.sort((a, b) => a.at.getTime() - b.at.getTime());
  }
}

/**
 * The lines at the end of `file` back to the first one before `since` (lines are appended in time
 * order). A missing file has none.
 */
async function readTailFrom(file: string, since: number): Promise<ReturnType<typeof parseMetricLines>> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = (await handle.stat()).size;
    let start = size;
    // Bytes, decoded whole each step: a chunk boundary may split a UTF-8 character.
    let bytes = Buffer.alloc(0);
    const wholeLines = () => {
      const text = bytes.toString('utf8');
      return start === 0 ? text : text.slice(text.indexOf('\n') + 1); // the first line may be cut
    };
    while (start > 0) {
      const length = Math.min(CHUNK_BYTES, start);
      start -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, start);
      bytes = Buffer.concat([chunk, bytes]);
      const text = wholeLines();
      const [first] = parseMetricLines(text.slice(0, text.indexOf('\n') + 1 || undefined));
      if (first && Date.parse(first.at) < since) break;
    }
    return parseMetricLines(wholeLines());
  } finally {
    await handle.close();
  }
}
