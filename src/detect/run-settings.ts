import fs from 'node:fs';
import path from 'node:path';
import { APP_SETTINGS } from '../platform/app-settings';
import { rawSetting, readSetting } from '../platform/setting-spec';

/**
 * Settings of long runs: the resume checkpoints, the timer's time budget and the failure
 * backoff. Read from app settings (env, declared in `src/platform/app-settings-runtime.ts`); every
 * one has a default.
 */
export interface RunSettings {
  /**
   * Least time between two saved resume cursors, ms (`HIGHWATER_RESUME_CHECKPOINT_SECONDS`).
   * Default 5 s. 0 saves after every page.
   */
  checkpointIntervalMs: number;
  /** First wait after a failed run, ms (`HIGHWATER_RETRY_BASE_SECONDS`). Default 30 s. */
  retryBaseMs: number;
  /** Longest wait between failed runs, ms (`HIGHWATER_RETRY_MAX_SECONDS`). Default 30 min. */
  retryMaxMs: number;
  /**
   * Backpressure (`HIGHWATER_QUEUE_DEPTH_LIMIT`): a scheduled run stops sending at a page boundary
   * once its priority queue holds this many active messages, and resumes after its cursor when
   * the queue is down to half of it, so other jobs of that priority get their changes in between
   * (`queue-room.ts`). Default 5,000. 0 = no limit.
   */
  queueDepthLimit: number;
}


/** Share of `functionTimeout` a timer run may use before it stops at a page boundary. */
const BUDGET_SHARE_OF_TIMEOUT = 2 / 3;
/** Functions' `functionTimeout` when neither host.json nor the app settings give one (Premium/Dedicated default). */
const DEFAULT_FUNCTION_TIMEOUT_MS = 30 * 60_000;

/** @throws ConfigError naming the setting when one is not a number of seconds (or of messages). */
export function readRunSettings(env: NodeJS.ProcessEnv = process.env): RunSettings {
  return {
    checkpointIntervalMs: readSetting(env, APP_SETTINGS.checkpointSeconds),
    retryBaseMs: readSetting(env, APP_SETTINGS.retryBaseSeconds),
    retryMaxMs: readSetting(env, APP_SETTINGS.retryMaxSeconds),
    queueDepthLimit: readSetting(env, APP_SETTINGS.queueDepthLimit),
  };
}

/** `hh:mm:ss` (host.json's `functionTimeout`) in ms; undefined for `-1` / unreadable text (no limit known). */
export function parseTimeSpan(text: string): number | undefined {
  const match = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const [, days = '0', h, m, s] = match;
  return (((Number(days) * 24 + Number(h)) * 60 + Number(m)) * 60 + Number(s)) * 1000;
}

/**
 * The timer's time budget per invocation, ms: `HIGHWATER_RUN_BUDGET_SECONDS` when set (0 = no
 * budget), else {@link BUDGET_SHARE_OF_TIMEOUT} of `functionTimeout` — from the app setting
 * `AzureFunctionsJobHost__functionTimeout`, else `host.json` in `appRoot`, else 30 min.
 * A run checks the budget between pages, so the share leaves room for the page being read, the
 * flush and the final writes.
 * @throws ConfigError naming the setting when it is not a number of seconds.
 */
export function readTimeBudgetMs(env: NodeJS.ProcessEnv = process.env, appRoot: string = process.cwd()): number | undefined {
  if (rawSetting(env, APP_SETTINGS.budgetSeconds.name) !== undefined) return readSetting(env, APP_SETTINGS.budgetSeconds);
  return Math.floor(functionTimeoutMs(env, appRoot) * BUDGET_SHARE_OF_TIMEOUT);
}

function functionTimeoutMs(env: NodeJS.ProcessEnv, appRoot: string): number {
  const fromSetting = readSetting(env, APP_SETTINGS.functionTimeout);
  if (fromSetting) return parseTimeSpan(fromSetting) ?? DEFAULT_FUNCTION_TIMEOUT_MS;
  try {
    const host = JSON.parse(fs.readFileSync(path.join(appRoot, 'host.json'), 'utf8')) as { functionTimeout?: unknown };
    if (typeof host.functionTimeout === 'string') return parseTimeSpan(host.functionTimeout) ?? DEFAULT_FUNCTION_TIMEOUT_MS;
  } catch {
    // No host.json (local host, tests): the default applies.
  }
  return DEFAULT_FUNCTION_TIMEOUT_MS;
}

/** Wait before the next timer run after `failures` consecutive failures: base · 2^(n−1), capped. */
export function retryDelayMs(failures: number, settings: Pick<RunSettings, 'retryBaseMs' | 'retryMaxMs'>): number {
  if (failures <= 0) return 0;
  const exponent = Math.min(failures - 1, 30);
  return Math.min(settings.retryBaseMs * 2 ** exponent, settings.retryMaxMs);
}
