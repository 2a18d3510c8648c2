#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands';
import { reportCliError } from './cli-error';
import { exitAfterOutput } from './exit-after-output';
import { packageVersion } from './package-root';

/** Builds the `highwater` program; exported so tests can run it in-process. */
export function buildProgram(): Command {
  const program = new Command('highwater')
    .description('Highwater: change detection, priority queues and reliable apply between business systems')
    .version(packageVersion(), '-V, --version', 'print the version')
    // One hint line after a parser error, not the command's whole help, which buried the error.
    .showHelpAfterError('(add --help to the command to see its arguments and options)')
    .exitOverride();
  registerCommands(program);
  return program;
}

/** Runs the CLI and resolves with the process exit code (0 ok, 1 failure, 2 bad arguments). */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      return 2;
    }
    return reportCliError(err);
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(
    (code) => exitAfterOutput(code),
    (err) => exitAfterOutput(reportCliError(err)),
  );
}
