import net from 'node:net';
import { ConfigError } from '../platform/errors';
import type { Settings } from '../platform/settings';
import { processingMode, type ProcessingMode } from './processing-mode';

/**
 * What the local host checks before it starts anything: the processing mode its options allow,
 * and that its HTTP port is free (so a taken port is reported before Azurite starts).
 */

/** The options {@link chosenMode} reads (LocalHostOptions' own). */
export interface ModeOptions {
  processing?: ProcessingMode;
  /** Set: a custom connector registry, which cannot cross to a worker thread. */
  registry?: unknown;
  /** Set: a custom clock, which cannot cross to a worker thread. */
  clock?: unknown;
}

/** The processing mode of these options. @throws ConfigError for a bad setting, or `worker` with a registry or clock. */
export function chosenMode(options: ModeOptions, settings: Pick<Settings, 'localProcessing'>): ProcessingMode {
  const custom = options.registry ? 'registry' : options.clock ? 'clock' : undefined;
  if (options.processing === 'worker' && custom) {
    throw new ConfigError(`processing 'worker' cannot use the ${custom} option: a worker thread builds its own from the settings; use processing 'inline'`);
  }
  const mode = options.processing ?? processingMode(settings.localProcessing);
  return custom ? 'inline' : mode;
}

/** The message for a taken HTTP port: which port, and the flag that picks another. */
export function portInUseMessage(port: number): string {
  return `port ${port} on 127.0.0.1 is already in use (another highwater host?): stop what listens there, or pick another port with --port N (--port 0 picks a free one)`;
}

/** A listen error as the host reports it: a taken port as {@link portInUseMessage}, anything else as it is. */
export function listenError(err: NodeJS.ErrnoException, port: number): Error {
  return err.code === 'EADDRINUSE' ? new ConfigError(portInUseMessage(port), { cause: err }) : err;
}

/** Fails fast, before Azurite starts, when the HTTP port is taken. @throws ConfigError {@link portInUseMessage}. */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, port)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
