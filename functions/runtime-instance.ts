import { systemClock, type Clock } from '../src/platform/clock';
import { deadlineAfter } from '../src/platform/deadline';
import { readSettings } from '../src/platform/settings';
import { createRuntime, type Runtime } from '../src/runtime/runtime';
import { settleWithin } from '../src/telemetry/app-insights-metrics';
import { createTelemetry } from '../src/telemetry/create-telemetry';
import { consoleLogger, type Logger } from '../src/telemetry/logger';

/**
 * How long the worker's shutdown may take in all, ms. After WorkerTerminate the Functions host
 * waits 5 s for the worker process to exit and then kills it (`WorkerTerminateGracePeriodInSeconds`
 * of azure-functions-host); the Node worker runs the `appTerminate` hooks in that time. 4 s leaves
 * a second for the worker's own exit.
 */
export const SHUTDOWN_BUDGET_MS = 4_000;
/** Of the budget, what is kept for the telemetry (flush and SDK shutdown) after the runtime's close, ms. */
export const TELEMETRY_SHARE_MS = 2_000;

/** The Functions runtime: its close ends within `withinMs` (default the budget), whatever hangs. */
export interface FunctionsRuntime extends Runtime {
  close(withinMs?: number): Promise<void>;
}

/** How much longer than the budget {@link closeRuntime} waits for a close that does not end by itself, ms. */
const CLOSE_SLACK_MS = 250;

/** Shutdown options (tests); the defaults are the worker's. */
export interface ShutdownOptions {
  /** Default {@link SHUTDOWN_BUDGET_MS}. */
  budgetMs?: number;
  /** Default the system clock. */
  clock?: Clock;
  /** Where what shutdown gives up is reported. Default the console, which the worker forwards to the host. */
  log?: Pick<Logger, 'warn'>;
}

/**
 * One runtime per worker process, created on first use and shared by every function: the
 * connectors' pools, the bus clients and the loaded configuration are reused across invocations.
 * Concurrent first invocations wait for the same creation; a failed creation is not kept, so the
 * next invocation tries again (e.g. once the storage account is reachable).
 */
let factory: () => Promise<Runtime> = createFunctionsRuntime;
let pending: Promise<Runtime> | undefined;

/**
 * The runtime from the app settings, with Application Insights metrics and logs when
 * `APPLICATIONINSIGHTS_CONNECTION_STRING` is set (in memory otherwise, e.g. under `func start`).
 */
export async function createFunctionsRuntime(env: NodeJS.ProcessEnv = process.env, shutdown: ShutdownOptions = {}): Promise<FunctionsRuntime> {
  const { budgetMs = SHUTDOWN_BUDGET_MS, clock = systemClock, log = consoleLogger } = shutdown;
  const settings = readSettings(env);
  // One log path: with Application Insights, lines go only through the SDK (with their context
  // as custom dimensions); the worker would forward console output as a second copy.
  // A flush (the runtime's close flushes too) must fit in the shutdown budget.
  const telemetry = await createTelemetry(settings, env, { localFile: false, echoLog: false, flushTimeoutMs: Math.min(TELEMETRY_SHARE_MS, budgetMs) / 2, clock });
  try {
    const runtime = await createRuntime({ settings, env, metrics: telemetry.metrics, log: telemetry.log });
    return {
      ...runtime,
      // Within the budget whatever hangs (a storage outage while applied hashes are flushed, an
      // exporter that does not answer): the host kills the worker soon after anyway, and what is
      // given up is said on the console rather than through the SDK, which may be what hangs.
      async close(withinMs = budgetMs) {
        const deadline = deadlineAfter(clock, withinMs);
        const forRuntime = Math.max(0, deadline.remainingMs() - Math.min(TELEMETRY_SHARE_MS, withinMs / 2));
        await settleWithin(runtime.close(), forRuntime, clock, (m) =>
          log.warn(`runtime not closed at shutdown: ${m}; applied hashes and versions not yet written and open connections go with the worker`),
        );
        await telemetry.close(deadline.remainingMs());
      },
    };
  } catch (err) {
    await telemetry.close();
    throw err;
  }
}

export function getRuntime(): Promise<Runtime> {
  if (!pending) {
    const creating = factory();
    pending = creating;
    creating.catch(() => {
      if (pending === creating) pending = undefined;
    });
  }
  return pending;
}

/**
 * Replaces how the runtime is created (tests, or a host that owns its runtime). The shared
 * instance is dropped, not closed: whoever supplied it closes it.
 */
export function setRuntimeFactory(create: () => Promise<Runtime>): void {
  factory = create;
  pending = undefined;
}

/**
 * Closes the shared runtime (worker shutdown); the next use creates a new one. Returns within the
 * budget: a runtime still being created then (a cold start against unreachable storage) is not
 * waited for beyond it, nor a close that hangs.
 */
export async function closeRuntime(options: ShutdownOptions = {}): Promise<void> {
  const { budgetMs = SHUTDOWN_BUDGET_MS, clock = systemClock, log = consoleLogger } = options;
  const current = pending;
  pending = undefined;
  if (!current) return;
  const deadline = deadlineAfter(clock, budgetMs);
  let runtime: Runtime | undefined;
  await settleWithin(
    current.then((created) => void (runtime = created)).catch(() => undefined),
    deadline.remainingMs(),
    clock,
    (m) => log.warn(`runtime still being created at shutdown: ${m}; not closed`),
  );
  if (!runtime) return;
  // Ours ends by the deadline by itself; the slack is a net for a runtime that does not (one
  // given to setRuntimeFactory), without cutting short the report of ours.
  const remaining = deadline.remainingMs();
  await settleWithin((runtime as FunctionsRuntime).close(remaining), remaining + CLOSE_SLACK_MS, clock, (m) => log.warn(`runtime not closed at shutdown: ${m}`));
}
