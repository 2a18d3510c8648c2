import type { Dimensions, Metrics } from '../../../src/telemetry/metrics';

/** What a case may need beyond tracking and flushing; a harness declares what its adapter cannot do. */
export type Capability = 'reader' | 'failure';

/**
 * A point as its destination received it: one tracked value (`count` 1), or the roll-up of the
 * values of one series (name + dimensions) in one period: their sum, how many, the smallest and
 * the largest.
 */
export interface DeliveredPoint {
  name: string;
  value: number;
  count: number;
  min?: number;
  max?: number;
  dimensions: Dimensions;
}

/**
 * Where an adapter delivers, and how it is read back there: the in-memory points, the lines of
 * the local JSON-lines file, the envelopes an ingestion endpoint received.
 */
export interface Destination {
  name: string;
  /**
   * `each`: one point per value tracked. `rolled-up`: one point per series and period (a UTC
   * second, an export interval), as the adapter documents.
   */
  aggregation: 'each' | 'rolled-up';
  /** Everything delivered so far, in the order received. */
  delivered(): Promise<DeliveredPoint[]>;
}

/** A fresh adapter for one case. */
export interface OpenedMetrics {
  metrics: Metrics;
  /** One destination, or each adapter a fan-out sends to. */
  destinations: readonly Destination[];
  /** The adapter's clock. */
  now(): Date;
  /** Moves the adapter's clock forward (periods are over; nothing else happens). */
  advance(ms: number): Promise<void>;
  /** What a host does at shutdown: the adapter's own `close()` where it has one, else `flush()` (and the SDK client's shutdown). */
  close(): Promise<void>;
  /** Makes every destination fail from now on (a folder that cannot be written, an ingestion endpoint refusing). */
  breakDestinations?(): Promise<void>;
  /** Releases what the case took (files, clients); called after `close`. */
  dispose(): Promise<void>;
}

export interface MetricsHarness {
  open(): Promise<OpenedMetrics>;
  close(): Promise<void>;
}

export interface ContractContext {
  /** `it`, or `it.skip` with a printed reason when the adapter cannot do one of `uses`. */
  caseIt(uses: readonly Capability[]): (title: string, fn: () => Promise<void>) => void;
  open(): Promise<OpenedMetrics>;
}

/** A second as the cases let time pass: every period an adapter documents is over after it. */
export const PERIOD_MS = 1000;

/** Runs `fn` on a fresh adapter; closes and disposes it whatever happens. */
export async function withMetrics(ctx: ContractContext, fn: (m: OpenedMetrics) => Promise<void>): Promise<void> {
  const opened = await ctx.open();
  let closed = false;
  try {
    await fn({
      ...opened,
      close: async () => {
        closed = true;
        await opened.close();
      },
    });
  } finally {
    if (!closed) await opened.close().catch(() => undefined);
    await opened.dispose();
  }
}

/** Each destination's points as the cases compare them (min/max only where the destination rolls up). */
export async function deliveredBy(opened: OpenedMetrics): Promise<Array<{ destination: string; points: DeliveredPoint[] }>> {
  return Promise.all(opened.destinations.map(async (d) => ({ destination: d.name, points: (await d.delivered()).map((p) => shown(d, p)) })));
}

function shown(d: Destination, p: DeliveredPoint): DeliveredPoint {
  const base = { name: p.name, value: p.value, count: p.count, dimensions: p.dimensions };
  return d.aggregation === 'rolled-up' ? { ...base, min: p.min, max: p.max } : base;
}

/** What each destination must have received of `values` tracked in one period, by its aggregation. */
export function expectedFor(d: Destination, name: string, dimensions: Dimensions, values: readonly number[]): DeliveredPoint[] {
  if (values.length === 0) return [];
  if (d.aggregation === 'each') return values.map((value) => ({ name, value, count: 1, dimensions }));
  const sum = values.reduce((a, b) => a + b, 0);
  return [{ name, value: sum, count: values.length, min: Math.min(...values), max: Math.max(...values), dimensions }];
}

/** Sorts points by name, then dimensions, then value, for destinations that do not keep the order of series. */
export function bySeries(points: readonly DeliveredPoint[]): DeliveredPoint[] {
  const key = (p: DeliveredPoint) => `${p.name} ${JSON.stringify(Object.entries(p.dimensions).sort())}`;
  return [...points].sort((a, b) => key(a).localeCompare(key(b)) || a.value - b.value);
}
