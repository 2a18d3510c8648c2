import { errorMessage } from '../model/errors';
import { terminalText } from '../platform/terminal-text';

/** Prints an error for a CLI user and returns the exit code: 2 for bad arguments, else 1. */
export function reportCliError(err: unknown): number {
  const name = err && typeof err === 'object' && 'name' in err ? String((err as { name: unknown }).name) : '';
  console.error(terminalText(`error: ${errorMessage(err)}`));
  return name === 'UsageError' ? 2 : 1;
}

/** Bad arguments or flags: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
