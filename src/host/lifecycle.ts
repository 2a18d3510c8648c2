/**
 * A host as a list of parts that start in order and stop in reverse: each part may use the parts
 * before it (the processors use the runtime, the HTTP server the durable routes), so none is
 * stopped while a later one still runs, and a failed start leaves nothing running behind it.
 */

/** One part of a host. */
export interface LifecycleComponent {
  /** What it is, for messages ("the HTTP server"). */
  readonly name: string;
  start(): Promise<void>;
  /** Called once, and only after {@link start} succeeded. */
  stop(): Promise<void>;
}

/** A component whose start produces something the components after it use (a runtime, a URL). */
export interface Resource<T> extends LifecycleComponent {
  /** @throws Error before the start succeeded (a component read out of order is a bug). */
  readonly value: T;
}

/** A {@link Resource} from an open and a close: `close` gets what `open` produced. */
export function resource<T>(name: string, open: () => Promise<T>, close: (value: T) => Promise<void>): Resource<T> {
  let opened: { value: T } | undefined;
  return {
    name,
    get value(): T {
      if (!opened) throw new Error(`${name} is used before it started`);
      return opened.value;
    },
    async start() {
      opened = { value: await open() };
    },
    async stop() {
      if (opened) await close(opened.value);
    },
  };
}

/** A component that only prepares (its start must finish before the next one starts); nothing to stop. */
export function step(name: string, run: () => Promise<void>): LifecycleComponent {
  return { name, start: run, stop: async () => {} };
}

export interface StartOptions {
  /** A stop that fails (the other components still stop). Default: ignored. */
  onStopError?: (err: unknown, component: LifecycleComponent) => void;
}

/**
 * Starts `components` one after the other. When a start fails, the components already started
 * are stopped in reverse order (their stop errors ignored: the start's error is the one to
 * report) and the start's error is thrown.
 * @returns a stop that stops every component in reverse order, each once however often it is
 *   called; a failing stop goes to `onStopError` and the components before it still stop.
 */
export async function startInOrder(components: readonly LifecycleComponent[], options: StartOptions = {}): Promise<() => Promise<void>> {
  const started: LifecycleComponent[] = [];
  try {
    for (const component of components) {
      await component.start();
      started.push(component);
    }
  } catch (err) {
    await stopInReverse(started, () => undefined);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stopInReverse(started, options.onStopError ?? (() => undefined)));
}

async function stopInReverse(started: readonly LifecycleComponent[], onError: (err: unknown, component: LifecycleComponent) => void): Promise<void> {
  for (const component of [...started].reverse()) {
    await component.stop().catch((err: unknown) => onError(err, component));
  }
}
