/**
 * The bus benchmark's workload, shared by the adapters' child processes: what to send, how to
 * report. Each adapter runs in its own process so that its peak RSS is its own.
 */
export interface Workload {
  /** Messages sent, then received and completed. */
  messages: number;
  /** Concurrent receivers (BullMQ: worker concurrency). */
  concurrency: number;
  /** Messages one receive may return (local bus only; BullMQ takes one job per slot). */
  prefetch: number;
  /** Body size in bytes. */
  bodyBytes: number;
  /** Messages per send call (BullMQ: per addBulk). */
  sendChunk: number;
  /** The local bus's `synchronous` option (BullMQ ignores it). Default the bus's: NORMAL. */
  synchronous?: 'NORMAL' | 'FULL';
}

export interface BenchResult {
  adapter: string;
  workload: Workload;
  sendSeconds: number;
  consumeSeconds: number;
  sendPerSecond: number;
  consumePerSecond: number;
  /** Messages / (send time + consume time). */
  totalPerSecond: number;
  peakRssMb: number;
}

/** A child prints exactly one line starting with this, followed by JSON. */
export const RESULT_PREFIX = 'BENCH_RESULT ';
export const SKIPPED_PREFIX = 'BENCH_SKIPPED ';

export function workloadFromArgv(argv: string[] = process.argv): Workload {
  const raw = argv[2];
  if (!raw) throw new Error('usage: <worker>.ts \'{"messages":100000,"concurrency":16,...}\'');
  return JSON.parse(raw) as Workload;
}

/** A JSON-safe body of exactly `bytes` UTF-8 bytes. */
export function makeBody(bytes: number): string {
  return 'x'.repeat(bytes);
}

export function peakRssMb(): number {
  return Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;
}

export function report(adapter: string, workload: Workload, start: number, sent: number, done: number): void {
  const sendSeconds = (sent - start) / 1000;
  const consumeSeconds = (done - sent) / 1000;
  const result: BenchResult = {
    adapter,
    workload,
    sendSeconds,
    consumeSeconds,
    sendPerSecond: Math.round(workload.messages / sendSeconds),
    consumePerSecond: Math.round(workload.messages / consumeSeconds),
    totalPerSecond: Math.round(workload.messages / (sendSeconds + consumeSeconds)),
    peakRssMb: peakRssMb(),
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

export function skip(reason: string): void {
  process.stdout.write(`${SKIPPED_PREFIX}${reason}\n`);
}
