import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { UsageError } from '../../src/cli/cli-error';
import { DURATION_HINT, parseDuration } from '../../src/platform/duration';
import { defaultRulesFile, rulesFileLabel } from '../../src/mover/default-rules';

/** How to reach the bus; when no flag picks one, the environment does (as for the host). */
export type ConnectionChoice =
  | { kind: 'environment' }
  | { kind: 'local'; dataDir: string }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'connectionEnv'; variable: string };

/** The parsed command line. */
export interface MoverOptions {
  queue: string;
  deadLetter: boolean;
  /** Rules file to read (absolute); default: the mover's `default-rules.yaml` (src/mover). */
  rulesFile: string;
  /** The rules file as shown in messages: as given, or relative to the working folder. */
  rulesLabel: string;
  apply: boolean;
  max?: number;
  job?: string;
  olderThanMs?: number;
  to?: string;
  configDir?: string;
  json: boolean;
  list: boolean;
  /** Resubmit also messages whose record has a newer applied change (they then overwrite it). */
  includeSuperseded: boolean;
  connection: ConnectionChoice;
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a positive integer.');
  return Number(value);
}

function durationMs(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError(`${DURATION_HINT}.`);
  return ms;
}

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty.');
  return value.trim();
}

interface RawOptions {
  queue: string;
  deadLetter?: boolean;
  rules?: string;
  apply?: boolean;
  max?: number;
  job?: string;
  olderThan?: number;
  to?: string;
  config?: string;
  json?: boolean;
  list?: boolean;
  includeSuperseded?: boolean;
  dataDir?: string;
  namespace?: string;
  connectionEnv?: string;
}

const USAGE = '--queue <name> [--dead-letter] [--rules <file>] [--apply] [options]';

/**
 * The line printed after any bad-arguments error: the usage and where the options are listed.
 * One line instead of the whole help (~35 lines), which buried the error above it.
 */
export const USAGE_LINE = `usage: dead-letter-mover ${USAGE} (--help lists every option)`;

/** The commander program; `onRun` receives the options once they parse. */
export function buildProgram(onRun: (options: MoverOptions) => Promise<void>, cwd: string): Command {
  const program = new Command('dead-letter-mover')
    .description(
      'Inspect and requeue dead-lettered or parked Highwater messages. Classifies every message of a queue ' +
        '(or its dead-letter subqueue) by rules: Resubmit to its work queue, None (leave it) or Skip (remove it). ' +
        'Dry run unless --apply. Exit codes: 0 ok, 1 partial failure, 2 bad arguments.',
    )
    .usage(USAGE)
    .requiredOption('-q, --queue <name>', 'source queue: a work queue (sbqhigh, sbqnormal, sbqlow), a transitive queue or sbqignored', nonEmpty)
    .option('-d, --dead-letter', "read the queue's dead-letter subqueue")
    .option('-r, --rules <file>', 'rules file (YAML or JSON); default: default-rules.yaml of the tool')
    .option('--apply', 'act on the messages (default: dry run, which changes nothing)')
    .option('--max <n>', 'consider at most n messages (oldest first)', positiveInteger)
    .option('--job <name>', 'only messages of this job (JobName)', nonEmpty)
    .option('--older-than <duration>', 'only messages enqueued at least this long ago (30m, 2h, 7d, PT1H)', durationMs)
    .option('--to <queue>', 'resubmit to this work queue instead of the derived one')
    .option('--config <dir>', 'config folder: job priorities (needed for sbqignored) and watermark types')
    .option('--json', 'print the report as JSON')
    .option('--list', 'list every message, not only samples')
    .option(
      '--include-superseded',
      'also resubmit messages whose record has a newer applied change (default: left in place); they overwrite that change',
    )
    .option('--data-dir <dir>', 'local bus folder (default: HIGHWATER_DATA_DIR, else .data)')
    .option('--namespace <host>', 'Azure Service Bus namespace (<name>.servicebus.windows.net), signed in with DefaultAzureCredential')
    .option('--connection-env <name>', 'name of the environment variable holding a Service Bus connection string')
    .showHelpAfterError(USAGE_LINE)
    .exitOverride()
    .action(async (raw: RawOptions) => onRun(toMoverOptions(raw, cwd)));
  return program;
}

function toMoverOptions(raw: RawOptions, cwd: string): MoverOptions {
  const picked = [raw.dataDir && '--data-dir', raw.namespace && '--namespace', raw.connectionEnv && '--connection-env'].filter(Boolean);
  if (picked.length > 1) throw new UsageError(`${picked.join(' and ')} pick different buses: give one of them`);
  let connection: ConnectionChoice = { kind: 'environment' };
  if (raw.dataDir) connection = { kind: 'local', dataDir: path.resolve(cwd, raw.dataDir) };
  if (raw.namespace) connection = { kind: 'namespace', namespace: raw.namespace };
  if (raw.connectionEnv) connection = { kind: 'connectionEnv', variable: raw.connectionEnv };
  const rules = raw.rules ?? defaultRulesFile();
  return {
    queue: raw.queue,
    deadLetter: raw.deadLetter === true,
    rulesFile: path.resolve(cwd, rules),
    rulesLabel: raw.rules ?? rulesFileLabel(rules, cwd),
    apply: raw.apply === true,
    max: raw.max,
    job: raw.job,
    olderThanMs: raw.olderThan,
    to: raw.to,
    configDir: raw.config === undefined ? undefined : path.resolve(cwd, raw.config),
    json: raw.json === true,
    list: raw.list === true,
    includeSuperseded: raw.includeSuperseded === true,
    connection,
  };
}
