import { createRuntime, type Runtime } from '../src/runtime/runtime';

/**
 * One runtime per worker process, created on first use and shared by every function: the
 * connectors' pools, the bus clients and the loaded configuration are reused across invocations.
 * Concurrent first invocations wait for the same creation; a failed creation is not kept, so the
 * next invocation tries again (e.g. once the storage account is reachable).
 */
let factory: () => Promise<Runtime> = () => createRuntime();
let pending: Promise<Runtime> | undefined;

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
 * Replaces how the runtime is created (tests, or a host that builds its own); the current
 * instance is closed first, if there is one.
 */
export async function setRuntimeFactory(create: () => Promise<Runtime>): Promise<void> {
  await closeRuntime();
  factory = create;
}

/** Closes the shared runtime (worker shutdown); the next use creates a new one. */
export async function closeRuntime(): Promise<void> {
  const current = pending;
  pending = undefined;
  if (!current) return;
  const runtime = await current.catch(() => undefined);
  await runtime?.close();
}
