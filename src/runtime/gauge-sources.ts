import { errorMessage } from '../platform/errors';
import { sampleGauges, type GaugeSample, type GaugeSources } from './gauges';
import type { Runtime } from './runtime';

/**
 * What the gauges read, from a runtime: its jobs once configuration is loaded (none before, so
 * queue depths are still sampled), watermarks, bus, queues, metrics and clock. The same sources
 * the local host's sampler uses (`src/host/local-host.ts`).
 */
function runtimeGaugeSources(runtime: Runtime): GaugeSources {
  return {
    jobs: () => (runtime.init.isInitialized ? runtime.init.config.jobs : []),
    watermarks: runtime.watermarks,
    bus: runtime.bus,
    queues: runtime.settings.queues,
    metrics: runtime.metrics,
    clock: runtime.clock,
    log: runtime.log,
    timeZone: runtime.settings.timeZone,
    pairs: { names: () => (runtime.init.isInitialized ? (runtime.init.config.pairs ?? []).map((p) => p.name) : []), conflicts: runtime.couplings },
  };
}

/**
 * One sample of `WatermarkLagSeconds`, `JobOverdueSeconds` and `QueueDepth` (the Functions app's gauge timer). Loads
 * the configuration first, so lag is sampled on an instance no other function has run on yet; a
 * configuration that does not load is logged, and queue depths are sampled all the same.
 */
export async function sampleRuntimeGauges(runtime: Runtime): Promise<GaugeSample> {
  try {
    await runtime.init.ensureInitialized();
  } catch (err) {
    runtime.log.warn(`watermark lag not sampled: configuration unavailable (${errorMessage(err)})`);
  }
  return sampleGauges(runtimeGaugeSources(runtime));
}
