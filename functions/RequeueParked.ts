import path from 'node:path';
import { app, type InvocationContext, type Timer } from '@azure/functions';
import { loadRequeueConfig, type LoadedRequeueConfig } from '../src/config/requeue-config';
import { requeueDue, requeueParked } from '../src/runtime/scheduled-requeue';
import { APP_SETTINGS } from '../src/platform/app-settings';
import { readSetting } from '../src/platform/setting-spec';
import { getRuntime } from './runtime-instance';

/**
 * Every minute at second 30 (off the gauges' second 0): the timer is a singleton, so one instance
 * looks however far the app has scaled out. The requeue's own schedule (in the requeue file)
 * decides whether this minute runs; a fixed trigger needs no app setting for it.
 */
export const REQUEUE_PARKED_SCHEDULE = '30 * * * * *';
const LOOK_EVERY_MS = 60_000;

/**
 * Timer: the scheduled requeue of parked messages (src/runtime/scheduled-requeue.ts). Off unless
 * the app setting `HIGHWATER_REQUEUE_CONFIG` names a folder of the deployed app holding a
 * requeue file with `enabled: true`. A bad requeue file fails the invocation (the host logs it).
 */
export async function requeueParkedTimer(_timer: Timer, context: InvocationContext, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const folder = readSetting(env, APP_SETTINGS.requeueConfig);
  if (!folder) return context.debug(`requeue off: ${APP_SETTINGS.requeueConfig.name} is not set`);
  const config: LoadedRequeueConfig | undefined = await loadRequeueConfig(path.resolve(folder));
  if (!config?.enabled) return context.debug(`requeue off: no requeue file with enabled: true in ${folder}`);
  const runtime = await getRuntime();
  if (!requeueDue(config.schedule, runtime.clock.now(), LOOK_EVERY_MS, runtime.settings.timeZone)) return;
  await runtime.init.ensureInitialized();
  const run = await requeueParked(
    { bus: runtime.bus, settings: runtime.settings, jobs: () => runtime.init.config.jobs, clock: runtime.clock, log: runtime.log },
    config,
  );
  context.log(`requeue: ${run.resubmitted} resubmitted, ${run.capped} left for a person, ${run.failed} failed${run.errors.length ? `; ${run.errors.join('; ')}` : ''}`);
}

app.timer('RequeueParked', { schedule: REQUEUE_PARKED_SCHEDULE, runOnStartup: false, useMonitor: false, handler: (timer, context) => requeueParkedTimer(timer, context) });
