import type { Command } from 'commander';

/**
 * Every subcommand group registers itself here (one file per group under `commands/`).
 * Keep this list the only place that knows them all.
 */
export function registerCommands(program: Command): void {
  void program;
}
