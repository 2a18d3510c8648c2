import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { readSettings, type Settings } from '../../platform/settings';
import type { Runtime, RuntimeOptions } from '../../runtime/runtime';
import { terminalText } from '../../platform/terminal-text';
import { errorMessage } from '../../platform/errors';
import { UsageError } from '../cli-error';

export interface PushCommandDeps {
  settings: () => Settings;
  openRuntime: (options: RuntimeOptions) => Promise<Runtime>;
  print: (line: string) => void;
  notice: (line: string) => void;
}

const defaultDeps: PushCommandDeps = {
  settings: () => readSettings(),
  openRuntime: async (options) => (await import('../../runtime/runtime')).createRuntime(options),
  print: (line) => console.log(terminalText(line)),
  notice: (line) => console.error(terminalText(line)),
};

/**
 * `highwater push dataverse-file FILE [--config DIR]`: feeds one Dataverse `RemoteExecutionContext`
 * (JSON, as a Service Bus service endpoint with message format JSON posts it) to the handler the
 * Functions app's queue trigger runs: the messages of every job with `push.format: dataverse`
 * reading its table are sent (a running host applies them). The local host cannot receive from
 * Service Bus without a connection string; this is its way in. Exit 1 when the file is refused.
 */
export function registerPushCommands(program: Command, deps: PushCommandDeps = defaultDeps): void {
  const push = program.command('push').description('feed pushed notifications to their jobs by hand');
  push
    .command('dataverse-file')
    .description('send the messages of one Dataverse RemoteExecutionContext (a JSON file) to the jobs that take its table')
    .argument('<file>', 'a RemoteExecutionContext as JSON')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .action(async (file: string, options: { config?: string }) => {
      let context: unknown;
      try {
        const text = await readFile(file, 'utf8');
        context = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch (err) {
        throw new UsageError(`${file}: ${errorMessage(err)}`);
      }
      const runtime = await deps.openRuntime({
        settings: deps.settings(),
        ...(options.config === undefined ? {} : { configDir: options.config }),
        log: { info: () => {}, warn: (m) => deps.notice(`warning: ${m}`), error: (m) => deps.notice(m) },
      });
      try {
        for (const outcome of await runtime.push.receiveDataverseEvent(context)) {
          deps.print(`job ${outcome.job}: sent ${outcome.sent} to ${outcome.queue}${outcome.pollRequested ? `; poll requested: ${outcome.pollRequested}` : ''}`);
        }
      } finally {
        await runtime.close();
      }
    });
}
