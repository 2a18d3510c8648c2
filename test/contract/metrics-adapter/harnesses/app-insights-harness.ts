import { type ChildProcess, fork } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Metrics } from '../../../../src/telemetry/metrics';
import type { DeliveredPoint, MetricsHarness } from '../context';
import type { ChildReply, ChildRequest } from './app-insights-child';
import { type Envelope, type IngestionStandIn, startIngestionStandIn } from './ingestion-stand-in';

/**
 * `AppInsightsMetrics` on the real SDK (`applicationinsights`, its Azure Monitor exporter),
 * sending to an ingestion endpoint stand-in; what arrived is read back from the envelopes the
 * endpoint received (`customMetrics`: sum, count, min, max per series and export). The adapter
 * runs in a child process (see `app-insights-child.ts`), started once per suite; each case gets
 * a client of its own instrumentation key. `track` is sent to the child in order; should the
 * adapter's `track` throw there, the case fails when it is disposed.
 */
export async function appInsightsHarness(): Promise<MetricsHarness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-appinsights-contract-'));
  const ingestion = await startIngestionStandIn(dir);
  const child = await startChild(dir, ingestion);
  let adapters = 0;
  return {
    open: async () => {
      const adapter = ++adapters;
      const iKey = `00000000-0000-4000-8000-${String(adapter).padStart(12, '0')}`;
      await child.request({ op: 'open', seq: 0, adapter, connectionString: `InstrumentationKey=${iKey};IngestionEndpoint=${ingestion.endpoint}` });
      const trackErrors = child.trackErrors.length;
      const metrics: Metrics = {
        track: (name, value, dimensions) => child.send({ op: 'track', adapter, name, value, dimensions }),
        flush: () => child.request({ op: 'flush', seq: 0, adapter }),
      };
      return {
        metrics,
        destinations: [{ name: 'ingestion endpoint', aggregation: 'rolled-up', delivered: async () => metricPoints(ingestion.received(iKey)) }],
        now: () => new Date(),
        // The adapter's clock only times its flush; an export period ends with each flush.
        advance: async () => undefined,
        close: () => child.request({ op: 'close', seq: 0, adapter }),
        breakDestinations: async () => ingestion.refuse(iKey),
        dispose: async () => {
          expect(child.trackErrors.slice(trackErrors)).toEqual([]);
        },
      };
    },
    close: async () => {
      await child.stop();
      await ingestion.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** The metric items of envelopes, as `customMetrics` rows: one per series and export. */
function metricPoints(envelopes: readonly Envelope[]): DeliveredPoint[] {
  return envelopes
    .filter((e) => e.name === 'Microsoft.ApplicationInsights.Metric')
    .flatMap((e) => {
      const data = e.data?.baseData as { metrics: Array<{ name: string; value: number; count?: number; min?: number; max?: number }>; properties?: Record<string, string> };
      return data.metrics.map((m) => ({ name: m.name, value: m.value, count: m.count ?? 1, min: m.min, max: m.max, dimensions: data.properties ?? {} }));
    });
}

interface Child {
  send(request: ChildRequest): void;
  request(request: ChildRequest & { seq: number }): Promise<void>;
  trackErrors: string[];
  stop(): Promise<void>;
}

async function startChild(dir: string, ingestion: IngestionStandIn): Promise<Child> {
  const process_: ChildProcess = fork(path.join(__dirname, 'app-insights-child.ts'), [], {
    execArgv: ['-r', path.resolve(__dirname, '../../../../src/platform/swc-register.js')],
    // Structured clone: NaN and Infinity reach the adapter as they were tracked.
    serialization: 'advanced',
    // The exporter keeps what it could not send under the temporary folder: this suite's.
    env: { ...process.env, NODE_EXTRA_CA_CERTS: ingestion.certificateFile, APPLICATIONINSIGHTS_STATSBEAT_DISABLED: 'true', APPLICATION_INSIGHTS_NO_STATSBEAT: 'true', TMPDIR: dir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const trackErrors: string[] = [];
  let seq = 0;
  const ready = new Promise<void>((resolve, reject) => {
    waiting.set(0, { resolve, reject });
    process_.once('exit', (code) => reject(new Error(`the Application Insights child exited (${code}) before it was ready`)));
  });
  process_.on('message', (reply: ChildReply) => {
    if ('trackError' in reply) trackErrors.push(reply.trackError);
    if (!('seq' in reply)) return;
    const waiter = waiting.get(reply.seq);
    waiting.delete(reply.seq);
    if (reply.error) waiter?.reject(new Error(reply.error));
    else waiter?.resolve();
  });
  await ready;
  return {
    send: (request) => void process_.send(request),
    request: (request) =>
      new Promise<void>((resolve, reject) => {
        const id = ++seq;
        waiting.set(id, { resolve, reject });
        process_.send({ ...request, seq: id });
      }),
    trackErrors,
    stop: () =>
      new Promise<void>((resolve) => {
        if (process_.exitCode !== null) return resolve();
        process_.once('exit', () => resolve());
        process_.send({ op: 'exit' });
      }),
  };
}
