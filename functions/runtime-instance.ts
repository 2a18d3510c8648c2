import { readSettings } from '../src/platform/settings';
import { createRuntime, type Runtime } from '../src/runtime/runtime';
import { createTelemetry } from '../src/telemetry/create-telemetry';

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
export async function createFunctionsRuntime(env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const settings = readSettings(env);
  // One log path: with Application Insights, lines go only through the SDK (with their context
  // as custom dimensions); the worker would forward console output as a second copy.
  const telemetry = await createTelemetry(settings, env, { localFile: false, echoLog: false });
  try {
    const runtime = await createRuntime({ settings, env, metrics: telemetry.metrics, log: telemetry.log });
    return {
      ...runtime,
      async close() {
        await runtime.close();
        await telemetry.close();
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

/** Closes the shared runtime (worker shutdown); the next use creates a new one. */
export async function closeRuntime(): Promise<void> {
  const current = pending;
  pending = undefined;
  if (!current) return;
  const runtime = await current.catch(() => undefined);
  await runtime?.close();
}
