import type { Clock } from '../platform/clock';
import { PRIORITIES, type Priority } from '../platform/queue-topology';
import type { Settings } from '../platform/settings';
import type { TargetHealthView } from '../process/target-health';
import type { Runtime } from '../runtime/runtime';
import type { Telemetry } from '../telemetry/create-telemetry';
import type { Logger } from '../telemetry/logger';
import { processedEntryOf, type HostStats } from './host-stats';
import type { LifecycleComponent, Resource } from './lifecycle';
import { DEFAULT_CONCURRENCY, type ProcessingMode } from './processing-mode';
import { ProcessingWorker } from './processing-worker';
import { QueueProcessor } from './queue-processor';

/** How often the processing worker's receives look at an empty queue, ms (sends of the main thread do not wake another thread). */
const WORKER_POLL_MS = 10;

/** A queue processor as the host shows it, on whichever thread it runs. */
export interface ProcessorView {
  /** Messages being processed right now. */
  readonly busy: number;
}

export interface ProcessorsOptions {
  /** Where they run: a worker thread, or the main thread. */
  mode: ProcessingMode;
  settings: Settings;
  /** Absent: the configuration tables (tables mode). */
  configDir?: string;
  /** Per priority. Default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: Partial<Record<Priority, number>>;
  /** Started before the processors: inline ones use its bus and processor. */
  runtime: Resource<Runtime>;
  /** Started before the processors: the worker tracks its points and logs there. */
  telemetry: Resource<Telemetry>;
  stats: HostStats;
  log: Logger;
  clock: Clock;
  /** Every applied change is recorded until then (see LocalHost: a host that took over from one that died). */
  recordAllAppliedUntil?: Date;
}

/** The host's queue processors: one per work queue, inline or on the processing worker. */
export interface Processors extends LifecycleComponent {
  /** Per priority; `busy` reads 0 before the start. */
  readonly views: Record<Priority, ProcessorView>;
  /** Set once the processing worker is given up on: why (never for inline processors). */
  failure(): Error | undefined;
  /** The outage mode of the worker that processes (the status page's outage and recovery boxes); undefined inline: the runtime's. */
  readonly targetHealth?: TargetHealthView;
}

/** The processors as one component; stopping lets the messages in flight finish. */
export function processorsComponent(options: ProcessorsOptions): Processors {
  return options.mode === 'worker' ? workerProcessors(options) : inlineProcessors(options);
}

function concurrencyOf(options: ProcessorsOptions, priority: Priority): number {
  return options.concurrency?.[priority] ?? DEFAULT_CONCURRENCY[priority];
}

function views(busy: (priority: Priority) => number): Record<Priority, ProcessorView> {
  const out = {} as Record<Priority, ProcessorView>;
  for (const p of PRIORITIES) out[p] = { get busy() { return busy(p); } };
  return out;
}

function workerProcessors(options: ProcessorsOptions): Processors {
  let worker: ProcessingWorker | undefined;
  const concurrency = Object.fromEntries(PRIORITIES.map((p) => [p, concurrencyOf(options, p)])) as Record<Priority, number>;
  return {
    name: 'the processing worker',
    views: views((p) => worker?.busy(p) ?? 0),
    failure: () => worker?.failure,
    targetHealth: { snapshot: () => worker?.targetHealth.snapshot() ?? [], recoveries: (now) => worker?.targetHealth.recoveries(now) ?? [] },
    async start() {
      worker = await ProcessingWorker.start({
        data: {
          settings: options.settings, configDir: options.configDir, concurrency, pollIntervalMs: WORKER_POLL_MS,
          ...(options.recordAllAppliedUntil ? { recordAllAppliedUntil: options.recordAllAppliedUntil.getTime() } : {}),
        },
        metrics: options.telemetry.value.metrics,
        log: options.telemetry.value.log,
        onResult: (r) => options.stats.recordProcessed({ ...r, at: new Date(r.at) }),
      });
    },
    stop: async () => worker?.stop(),
  };
}

function inlineProcessors(options: ProcessorsOptions): Processors {
  const { settings, stats, clock, log } = options;
  const inline = new Map<Priority, QueueProcessor>();
  return {
    name: 'the queue processors',
    views: views((p) => inline.get(p)?.busy ?? 0),
    failure: () => undefined,
    async start() {
      const runtime = options.runtime.value;
      for (const priority of PRIORITIES) {
        const queue = settings.queues.work[priority];
        const processor = new QueueProcessor({
          bus: runtime.bus,
          queue,
          processor: runtime.processor,
          log,
          concurrency: concurrencyOf(options, priority),
          onResult: (result, message) => stats.recordProcessed(processedEntryOf(clock.now(), queue, result, message)),
        });
        inline.set(priority, processor);
        processor.start();
      }
    },
    async stop() {
      await Promise.all([...inline.values()].map((p) => p.stop()));
    },
  };
}

/** What {@link waitUntilDrained} looks at besides the processors. */
export interface DrainSources {
  bus: Pick<Runtime['bus'], 'counts'>;
  queues: Settings['queues'];
}

/**
 * Resolves true when every work queue is empty and nothing is in flight (checked twice in a
 * row), false at the timeout. @throws the processing worker's failure once it is given up on.
 */
export async function waitUntilDrained(processors: Processors, sources: DrainSources, { timeoutMs = 600_000, pollMs = 250 } = {}): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let quietChecks = 0;
  while (Date.now() < deadline) {
    // A worker given up on never drains: say why instead of waiting out the timeout.
    const failure = processors.failure();
    if (failure) throw failure;
    let pending = PRIORITIES.reduce((n, p) => n + processors.views[p].busy, 0);
    for (const p of PRIORITIES) {
      const counts = await sources.bus.counts(sources.queues.work[p]);
      pending += counts.active + counts.scheduled;
    }
    quietChecks = pending === 0 ? quietChecks + 1 : 0;
    if (quietChecks >= 2) return true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return false;
}
