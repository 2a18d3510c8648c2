import { app, type InvocationContext, type Timer } from '@azure/functions';
import { sampleRuntimeGauges } from '../src/runtime/gauge-sources';
import { getRuntime } from './runtime-instance';

/**
 * Every minute, at second 0: the timer trigger is a singleton (a blob lease), so one instance
 * samples however far the app has scaled out and each gauge gets one point per minute.
 */
export const SAMPLE_GAUGES_SCHEDULE = '0 * * * * *';

/**
 * Timer: samples the gauges `QueueDepth` (every queue: active, scheduled, dead-letter) and
 * `WatermarkLagSeconds` (jobs with datetime watermarks), the same code the local host runs every
 * 15 s. Needs the Manage claim on the queues (Data Owner per queue, infra/modules/role-assignments.bicep).
 */
export async function sampleGaugesTimer(_timer: Timer, context: InvocationContext): Promise<void> {
  const runtime = await getRuntime();
  const sample = await sampleRuntimeGauges(runtime);
  context.debug(`gauges sampled: ${sample.depths.length} queue(s), ${Object.keys(sample.lagSeconds).length} watermark lag(s)`);
}

app.timer('SampleGauges', { schedule: SAMPLE_GAUGES_SCHEDULE, runOnStartup: false, useMonitor: false, handler: sampleGaugesTimer });
