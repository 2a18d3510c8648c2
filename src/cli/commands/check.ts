import path from 'node:path';
import type { Command } from 'commander';
import type { DescriberEntry } from '../../../connectors/base/entity-describer';
import type { ConnectionCheckReport } from '../../config/connection-check';
import type { ValidateOptions } from '../../config/validate-config';
import { ConfigValidationError, type ConfigIssue } from '../../platform/config-issue';
import { terminalText } from '../../platform/terminal-text';
import { ReportedFailure } from '../cli-error';

/** What `highwater check` needs from its surroundings (tests replace them). */
export interface CheckCommandDeps {
  /** An app setting's value. Default: the environment, as the host reads secrets. */
  resolveSecret: (name: string) => string | undefined;
  /** Default: the shipped describers. */
  describers?: Readonly<Record<string, DescriberEntry>>;
  /** Default: the shipped connector types' settings checks. */
  validateOptions: () => ValidateOptions;
  /** Results (stdout). */
  print: (line: string) => void;
  /** Notices (stderr). */
  notice: (line: string) => void;
}

export const defaultCheckDeps: CheckCommandDeps = {
  resolveSecret: (name) => process.env[name],
  validateOptions: () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs
    const { defaultConnectorRegistry } = require('../../../connectors/default-registry') as typeof import('../../../connectors/default-registry');
    return { connectionTypes: defaultConnectorRegistry().connectionTypes() };
  },
  print: (line) => console.log(terminalText(line)),
  notice: (line) => console.error(terminalText(line)),
};

/** What `check --json` prints. */
export interface CheckJson {
  folder: string;
  /** The folder passed `config validate` and every check against the systems. */
  ok: boolean;
  /** Validation issues when the folder is not valid (nothing is opened then), else the checks' issues. */
  issues: ConfigIssue[];
  /** What was not checked, and why. */
  notices: string[];
}

/**
 * Validates the folder, then checks it against its systems.
 * @returns the report; validation issues as its issues (no connection opened).
 */
export async function checkFolder(dir: string, deps: Pick<CheckCommandDeps, 'resolveSecret' | 'describers' | 'validateOptions'>): Promise<ConnectionCheckReport & { valid: boolean; counts?: string }> {
  const [{ loadConfigFolder }, { findConfigFiles }, { checkConnections }, { CONFIG_KINDS }, { withoutExpansion }] = await Promise.all([
    import('../../config/load-config'),
    import('../../config/config-files'),
    import('../../config/connection-check'),
    import('../../config/schema'),
    import('../../config/pair-expansion'),
  ]);
  let config;
  try {
    config = await loadConfigFolder(dir, deps.validateOptions());
  } catch (err) {
    if (err instanceof ConfigValidationError) return { valid: false, issues: err.issues, notices: [] };
    throw err;
  }
  const { files } = await findConfigFiles(dir, CONFIG_KINDS);
  const report = await checkConnections(config, {
    configDir: path.resolve(dir),
    files,
    resolveSecret: deps.resolveSecret,
    ...(deps.describers ? { describers: deps.describers } : {}),
  });
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  // As written: a pair counts as a pair, not as its jobs and mappings.
  const own = withoutExpansion(config);
  const pairs = own.pairs.length > 0 ? `, ${n(own.pairs.length, 'pair')}` : '';
  return { ...report, valid: true, counts: `${n(own.connections.length, 'connection')}, ${n(own.mappings.length, 'mapping')}, ${n(own.jobs.length, 'job')}${pairs}` };
}

/**
 * Runs the check as the CLI does: notices to stderr, issues as a configuration error (exit 1),
 * or one line that all is well. `json`: the {@link CheckJson} on stdout instead.
 */
export async function runCheck(dir: string, json: boolean | undefined, deps: CheckCommandDeps): Promise<void> {
  const report = await checkFolder(dir, deps);
  if (json) {
    const out: CheckJson = { folder: dir, ok: report.issues.length === 0, issues: report.issues, notices: report.notices };
    deps.print(JSON.stringify(out, null, 2));
    if (!out.ok) throw new ReportedFailure(1);
    return;
  }
  for (const notice of report.notices) deps.notice(`notice: ${notice}`);
  if (report.issues.length > 0) throw new ConfigValidationError(report.issues);
  deps.print(`${dir}: checked against its systems, no problems (${report.counts})`);
}

/**
 * `highwater check [--config DIR] [--json]`: opens every connection of the config folder and
 * checks what the mappings and jobs name (also `config validate --connect`).
 */
export function registerCheckCommand(program: Command, deps: CheckCommandDeps = defaultCheckDeps): void {
  program
    .command('check')
    .description('validate the config folder, then open every connection and check the tables, columns, watermark types, target keys and secrets it names (exit 1 on a problem)')
    .option('--config <dir>', 'config folder (connections, mappings, jobs as .yaml/.yml/.json)', 'config')
    .option('--json', 'print { folder, ok, issues, notices } as JSON (exit 1 when not ok)')
    .action(async (options: { config: string; json?: boolean }) => runCheck(options.config, options.json, deps));
}
