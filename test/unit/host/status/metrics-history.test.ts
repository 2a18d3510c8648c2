import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MetricsFileHistory } from '../../../../src/host/status/metrics-history';
import { outcomeTotals, throughputLastHour } from '../../../../src/host/status/throughput';
import type { Clock } from '../../../../src/platform/clock';
import { LocalMetrics } from '../../../../src/telemetry/local-metrics';
import { METRIC_NAMES } from '../../../../src/telemetry/metrics';

/** After a restart, "Last hour" counts what the previous run wrote to the metrics file. */
describe('last hour after a restart', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'hw-metrics-history-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const clockAt = (ref: { now: number }): Clock => ({ now: () => new Date(ref.now), sleep: async () => undefined, every: () => () => undefined });

  it('reads the hour before the start from the file, and the host’s own points from memory, each once', async () => {
    // The first host: 300 messages and 40 detected changes around midnight UTC (two day files), then it stops.
    const time = { now: Date.parse('2026-06-01T23:50:00Z') };
    const before = new LocalMetrics({ clock: clockAt(time), dir });
    for (let i = 0; i < 300; i++, time.now += 2_000) {
      before.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: i % 3 === 0 ? 'Failed' : 'Success' });
      if (i % 30 === 0) before.track(METRIC_NAMES.changesDetected, 4, { job: 'a' });
    }
    await before.close();
    // Older than the hour, and a line cut off by a crash: neither counts.
    writeFileSync(path.join(dir, 'metrics-2026-06-01.jsonl'), '{"at":"2026-06-01T20:00:00.000Z","name":"MessagesProcessed","value":9,"count":9,"dimensions":{"outcome":"Success"}}\n', { flag: 'a' });
    writeFileSync(path.join(dir, 'metrics-2026-06-02.jsonl'), '{"at":"2026-06-02T00:0', { flag: 'a' });

    // The second host starts at 00:05 and processes 5 messages of its own.
    time.now = Date.parse('2026-06-02T00:05:00Z');
    const startedAt = new Date(time.now);
    const after = new LocalMetrics({ clock: clockAt(time) });
    for (let i = 0; i < 5; i++) after.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: 'Success' });
    const history = await new MetricsFileHistory({ dir, startedAt }).points();
    const result = throughputLastHour(after, { recentProcessed: [] }, new Date(time.now), 60, history);
    expect(outcomeTotals(result.buckets)).toMatchObject({ Success: 200 + 5, Failed: 100 });
    expect(result.detected).toBe(40);
  });

  it('does not count a host’s own first second twice (file lines carry the start of their second)', async () => {
    const time = { now: Date.parse('2026-06-02T10:00:00.300Z') };
    const startedAt = new Date(time.now);
    const host = new LocalMetrics({ clock: clockAt(time), dir });
    time.now += 400; // 10:00:00.700: the same second as the start
    for (let i = 0; i < 7; i++) host.track(METRIC_NAMES.messagesProcessed, 1, { job: 'a', queue: 'sbqhigh', outcome: 'Success' });
    time.now += 2_000; // that second is over: its line is written
    host.track(METRIC_NAMES.changesDetected, 1, { job: 'a' });
    await host.flush();
    const history = await new MetricsFileHistory({ dir, startedAt }).points();
    expect(history).toEqual([]);
    const result = throughputLastHour(host, { recentProcessed: [] }, new Date(time.now), 60, history);
    expect(outcomeTotals(result.buckets).Success).toBe(7);
    await host.close();
  });

  it('a folder without metrics files gives no history', async () => {
    expect(await new MetricsFileHistory({ dir: path.join(dir, 'none'), startedAt: new Date() }).points()).toEqual([]);
  });
});
