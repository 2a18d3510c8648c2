import type { Command } from 'commander';
import { registerQueuesCommand } from './commands/queues';
import { registerCheckCommand } from './commands/check';
import { registerConfigCommands } from './commands/config';
import { registerWatermarkCommands } from './commands/watermark';
import { registerRunCommand } from './commands/run';
import { registerRunsCommand } from './commands/runs';
import { registerStartCommands } from './commands/start';
import { registerDemoCommands } from './commands/demo';
import { registerTablesCommands } from './commands/tables';
import { registerPushCommands } from './commands/push';
import { registerConflictsCommands } from './commands/conflicts';
import { registerPairsCommands } from './commands/pairs';

/**
 * Every subcommand group registers itself here (one file per group under `commands/`).
 * Keep this list the only place that knows them all.
 */
export function registerCommands(program: Command): void {
  registerQueuesCommand(program);
  registerConfigCommands(program);
  registerCheckCommand(program);
  registerWatermarkCommands(program);
  registerRunCommand(program);
  registerRunsCommand(program);
  registerStartCommands(program);
  registerDemoCommands(program);
  registerTablesCommands(program);
  registerPushCommands(program);
  registerConflictsCommands(program);
  registerPairsCommands(program);
}
