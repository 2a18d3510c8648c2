import path from 'node:path';
import { loadRequeueConfig } from '../config/requeue-config';
import type { Clock } from '../platform/clock';
import type { Settings } from '../platform/settings';
import type { Runtime } from '../runtime/runtime';
import { startScheduledRequeue } from '../runtime/scheduled-requeue';
import { APP_SETTINGS } from '../platform/app-settings';
import { readSetting } from '../platform/setting-spec';
import type { Logger } from '../telemetry/logger';
import { DetectionScheduler } from './detection-scheduler';
import { resource, type LifecycleComponent, type Resource } from './lifecycle';

/**
 * The local host's timers, as the Functions app's timer triggers: GetChanges on its schedule and
 * the scheduled requeue of parked messages. Both run only after everything they call has started.
 */

export interface ScheduleOptions {
  settings: Settings;
  /** Absent: the configuration tables (tables mode); the requeue file is then read from `HIGHWATER_REQUEUE_CONFIG`, as the Functions app reads it. */
  configDir?: string;
  runtime: Resource<Runtime>;
  clock: Clock;
  /** The host's logger (the scheduler's messages). */
  log: Logger;
  /** The telemetry logger (the requeue's runs). */
  telemetryLog: () => Logger;
}

/** The scheduled requeue: off unless the config folder's requeue file (tables mode: `HIGHWATER_REQUEUE_CONFIG`'s) enables it. */
export function requeueComponent({ settings, configDir, runtime, clock, telemetryLog }: ScheduleOptions): LifecycleComponent {
  return resource(
    'the scheduled requeue',
    async () => {
      const rt = runtime.value;
      const requeue = { bus: rt.bus, settings, jobs: () => rt.init.config.jobs, clock, log: telemetryLog() };
      const folder = configDir ?? readSetting(process.env, APP_SETTINGS.requeueConfig);
      return startScheduledRequeue(requeue, folder ? await loadRequeueConfig(path.resolve(folder)) : undefined);
    },
    (stop) => stop(),
  );
}

/** GetChanges on `settings.getChangesSchedule`, and at the occurrences of finer job schedules. */
export function detectionScheduleComponent({ settings, runtime, clock, log }: ScheduleOptions): LifecycleComponent {
  return resource(
    'the GetChanges schedule',
    async () => {
      const scheduler = new DetectionScheduler({
        schedule: settings.getChangesSchedule,
        timeZone: settings.timeZone,
        clock,
        log,
        tick: () => runtime.value.detection.execute(),
        jobSchedules: () => runtime.value.init.config.jobs.filter((job) => job.enabled).map((job) => job.schedule),
      });
      scheduler.start();
      return scheduler;
    },
    (scheduler) => scheduler.stop(),
  );
}

/** How often the local host keeps the Business Central subscriptions (as the Functions app's hourly timer). */
const KEEP_SUBSCRIPTIONS_EVERY_MS = 3600_000;

/**
 * Business Central webhook subscriptions: kept once the host listens (Business Central's
 * handshake calls back), then every hour. Runs in the background: a Business Central that
 * cannot be reached never holds the start. Nothing happens without a job with
 * `push.format: businesscentral`.
 */
export function subscriptionsComponent({ runtime, clock, log }: ScheduleOptions): LifecycleComponent {
  return resource(
    'the Business Central subscriptions',
    async () => {
      let running: Promise<unknown> = Promise.resolve();
      const keep = () => {
        running = runtime.value.subscriptions.keepAll().catch((err: unknown) => log.warn(`Business Central subscriptions not kept: ${String(err)}`));
      };
      keep();
      const stop = clock.every(KEEP_SUBSCRIPTIONS_EVERY_MS, keep);
      return async () => {
        stop();
        await running;
      };
    },
    (stop) => stop(),
  );
}
