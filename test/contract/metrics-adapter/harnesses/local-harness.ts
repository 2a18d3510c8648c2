import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalMetrics } from '../../../../src/telemetry/local-metrics';
import { FakeClock } from '../../../support/fake-clock';
import type { DeliveredPoint, Destination, MetricsHarness, OpenedMetrics } from '../context';

/**
 * `LocalMetrics` writing JSON lines to a fresh folder, read back from its files (rolled up per
 * UTC second); `openLocal` lets the fan-out harness put it next to another adapter.
 */
export function localMetricsHarness(): MetricsHarness {
  return { open: async () => (await openLocal()).opened, close: async () => undefined };
}

export interface OpenedLocal {
  opened: OpenedMetrics;
  local: LocalMetrics;
  clock: FakeClock;
  file: Destination;
}

export async function openLocal(clock = new FakeClock('2026-01-01T10:00:00Z')): Promise<OpenedLocal> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-metrics-contract-'));
  const metricsDir = path.join(dir, 'metrics');
  const local = new LocalMetrics({ clock, dir: metricsDir });
  const file: Destination = { name: 'JSON-lines file', aggregation: 'rolled-up', delivered: () => readLines(metricsDir) };
  const opened: OpenedMetrics = {
    metrics: local,
    destinations: [file],
    now: () => clock.now(),
    advance: (ms) => clock.advance(ms),
    close: () => local.close(),
    // A file where the folder should be: every write fails.
    breakDestinations: async () => {
      await fs.rm(metricsDir, { recursive: true, force: true });
      await fs.writeFile(metricsDir, 'not a folder');
    },
    dispose: () => fs.rm(dir, { recursive: true, force: true }),
  };
  return { opened, local, clock, file };
}

/** Every line of every file, parsed strictly (a line that is no JSON fails the case). */
async function readLines(dir: string): Promise<DeliveredPoint[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const points: DeliveredPoint[] = [];
  for (const name of names.sort()) {
    for (const line of (await fs.readFile(path.join(dir, name), 'utf8')).split('\n')) {
      if (line === '') continue;
      const p = JSON.parse(line) as DeliveredPoint;
      points.push({ name: p.name, value: p.value, count: p.count, min: p.min, max: p.max, dimensions: p.dimensions });
    }
  }
  return points;
}
