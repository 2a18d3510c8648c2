import { ConfigValidationError, formatIssueNamed } from '../platform/config-issue';
import { errorMessage } from '../platform/errors';
import { terminalText } from '../platform/terminal-text';

/**
 * Prints an error for a CLI user and returns the exit code: 2 for bad arguments, else 1. An
 * invalid configuration is printed one issue a line, each entry named beside its index.
 */
export function reportCliError(err: unknown): number {
  if (err instanceof ReportedFailure) return err.exitCode;
  const name = err && typeof err === 'object' && 'name' in err ? String((err as { name: unknown }).name) : '';
  console.error(terminalText(`error: ${cliErrorText(err)}`));
  return name === 'UsageError' ? 2 : 1;
}

/** The text of an error as the CLI shows it (without `error: `). */
function cliErrorText(err: unknown): string {
  return err instanceof ConfigValidationError ? err.issues.map(formatIssueNamed).join('\n') : errorMessage(err);
}

/** Bad arguments or flags: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A failure the command has already reported in its own output (e.g. `config validate --json`
 * printing the issues as JSON): exits with `exitCode`, prints nothing more.
 */
export class ReportedFailure extends Error {
  override readonly name = 'ReportedFailure';
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
