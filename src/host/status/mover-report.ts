import type { MessageBus } from '../../bus/message-bus';
import { SETTING_NAMES, type Settings } from '../../platform/settings';
import { errorMessage } from '../../platform/errors';
import { allQueueNames } from '../../platform/queue-topology';

/** One place the mover reads from. */
export interface MoverSource {
  queue: string;
  deadLetter: boolean;
}

/**
 * The mover's command line for a dry run of `source` against this host's bus: `--data-dir` for the
 * local bus (Azure connections come from the environment, never from arguments), `--config` so
 * that parked and ignored messages resolve their work queue.
 */
export function moverArguments(source: MoverSource, settings: Pick<Settings, 'dataDir' | 'serviceBusConnectionString' | 'serviceBusNamespace'>, configDir?: string): string[] {
  const args = ['--queue', source.queue];
  if (source.deadLetter) args.push('--dead-letter');
  if (!settings.serviceBusConnectionString && !settings.serviceBusNamespace) args.push('--data-dir', settings.dataDir);
  if (configDir) args.push('--config', configDir);
  return args;
}

/** `npx dead-letter-mover …` as a shell line (arguments with spaces or quotes are single-quoted). */
export function moverCommandLine(args: readonly string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['npx', 'dead-letter-mover', ...args].map(quote).join(' ');
}

export interface MoverReportResult {
  /** The mover's exit code: 0 ok, 1 partial failure, 2 bad arguments. */
  exitCode: number;
  /** The report as the mover prints it (stdout), then its messages (stderr). */
  lines: string[];
}

/**
 * Runs the dead-letter mover's dry run (its own command line, without `--apply`) on the host's
 * open bus and returns its report. The mover only peeks in a dry run; the bus is lent, not closed.
 * @throws Error when `source.queue` is not a queue of the settings (nothing else reaches the mover's arguments).
 */
export async function moverDryRunReport(
  runtime: { settings: Settings; bus: MessageBus },
  source: MoverSource,
  configDir?: string,
): Promise<MoverReportResult> {
  if (!allQueueNames(runtime.settings.queues).includes(source.queue)) throw new Error(`queue: unknown queue "${source.queue}"`);
  const args = moverArguments(source, runtime.settings, configDir);
  const out: string[] = [];
  const err: string[] = [];
  const lent = lend(runtime.bus);
  // Imported here: the mover is a tool with its own CLI; the host only needs it for this page.
  const { runMover } = await import('../../../tools/dead-letter-mover/main');
  try {
    const exitCode = await runMover(args, {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      env: queueEnv(runtime.settings),
      openBus: async () => lent,
    });
    return { exitCode, lines: [...out, ...err] };
  } catch (e) {
    return { exitCode: 1, lines: [...out, ...err, `error: ${errorMessage(e)}`] };
  }
}

/** The bus with a `close` that does nothing: the host keeps using it after the report. */
function lend(bus: MessageBus): MessageBus {
  return {
    send: (queue, messages) => bus.send(queue, messages),
    createBatch: (queue) => bus.createBatch(queue),
    sendBatch: (batch) => bus.sendBatch(batch),
    receive: (queue, options) => bus.receive(queue, options),
    renewLock: (message) => bus.renewLock(message),
    complete: (message) => bus.complete(message),
    completeMany: (messages) => bus.completeMany(messages),
    abandon: (message, properties) => bus.abandon(message, properties),
    deadLetter: (message, options) => bus.deadLetter(message, options),
    peek: (queue, options) => bus.peek(queue, options),
    counts: (queue) => bus.counts(queue),
    listQueues: () => bus.listQueues(),
    close: async () => {},
  };
}

/** The host's queue names as the environment the mover reads its settings from. */
function queueEnv(settings: Settings): NodeJS.ProcessEnv {
  const q = settings.queues;
  return {
    ...process.env,
    [SETTING_NAMES.dataDir]: settings.dataDir,
    [SETTING_NAMES.queueHigh]: q.work.high,
    [SETTING_NAMES.queueNormal]: q.work.normal,
    [SETTING_NAMES.queueLow]: q.work.low,
    [SETTING_NAMES.queueTransitiveHigh]: q.transitive.high,
    [SETTING_NAMES.queueTransitiveNormal]: q.transitive.normal,
    [SETTING_NAMES.queueTransitiveLow]: q.transitive.low,
    [SETTING_NAMES.queueIgnored]: q.ignored,
  };
}
