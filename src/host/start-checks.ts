import net from 'node:net';
import { findConfigFiles } from '../config/config-files';
import { checkConnections } from '../config/connection-check';
import { CONFIG_KINDS } from '../config/schema';
import type { HighwaterConfig } from '../model/config';
import { formatIssueNamed } from '../platform/config-issue';
import { ConfigError, errorMessage } from '../platform/errors';
import type { Logger } from '../telemetry/logger';
import type { Settings } from '../platform/settings';
import { processingMode, type ProcessingMode } from './processing-mode';

/**
 * What the local host checks before it starts anything: the processing mode its options allow,
 * and that its HTTP port is free (so a taken port is reported before Azurite starts); and, once
 * it runs, what `highwater check` checks against the systems (reported as warnings: a system
 * that is down now may be up by the first run).
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
function portInUseMessage(port: number): string {
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

/**
 * Runs `highwater check`'s checks on the loaded configuration in the background and logs what
 * they found: each issue as a warning (`check: jobs.yaml: jobs[0].watermark.field (job "x"): …`),
 * each notice as info, or one line that all is well. Never fails the host.
 * @returns resolves when the check has ended (the host waits for it when it stops).
 */
export function runStartCheck(config: HighwaterConfig, options: { configDir?: string; resolveSecret: (name: string) => string | undefined; log: Pick<Logger, 'info' | 'warn'> }): Promise<void> {
  const { log } = options;
  return (async () => {
    // Tables mode: issues name the tables (`jobs`, …), and relative files resolve against the
    // working directory, as the runtime resolves them.
    const { files } = options.configDir === undefined ? { files: {} } : await findConfigFiles(options.configDir, CONFIG_KINDS);
    const report = await checkConnections(config, { configDir: options.configDir ?? process.cwd(), files, resolveSecret: options.resolveSecret });
    for (const notice of report.notices) log.info(`check: ${notice}`);
    for (const issue of report.issues) log.warn(`check: ${formatIssueNamed(issue)}`);
    if (report.issues.length === 0) log.info(`check: every connection opened; the tables, columns and keys the configuration names are there`);
    else log.warn(`check: ${report.issues.length} problem${report.issues.length === 1 ? '' : 's'} found (the host runs on; \`highwater check\` shows them again)`);
  })().catch((err: unknown) => log.warn(`check: could not run: ${errorMessage(err)}`));
}
