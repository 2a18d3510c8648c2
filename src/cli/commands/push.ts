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
 *
 * `highwater push subscriptions list|create|delete`: the Business Central webhook subscriptions
 * of the jobs with `push.format: businesscentral` (create also renews, as the hourly timer does).
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

  const subscriptions = push.command('subscriptions').description('Business Central webhook subscriptions of the jobs with push.format businesscentral');
  const withRuntime = async <T>(config: string | undefined, use: (runtime: Runtime) => Promise<T>): Promise<T> => {
    const runtime = await deps.openRuntime({
      settings: deps.settings(),
      ...(config === undefined ? {} : { configDir: config }),
      log: { info: (m) => deps.notice(m), warn: (m) => deps.notice(`warning: ${m}`), error: (m) => deps.notice(m) },
    });
    try {
      await runtime.init.ensureInitialized();
      return await use(runtime);
    } finally {
      await runtime.close();
    }
  };
  subscriptions
    .command('list')
    .description('list the subscriptions Business Central holds for each job (id, expiry, notification URL without its query)')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .action(async (options: { config?: string }) => {
      await withRuntime(options.config, async (runtime) => {
        const listed = await runtime.subscriptions.list();
        if (listed.length === 0) deps.print('no job takes Business Central notifications (push.format businesscentral)');
        for (const { job, subscriptions: subs } of listed) {
          if (subs.length === 0) deps.print(`job ${job}: no subscription`);
          // The URL's query holds the function key: never printed.
          for (const sub of subs) deps.print(`job ${job}: ${sub.subscriptionId} expires ${sub.expirationDateTime} → ${sub.notificationUrl.split('?')[0]} (${sub.resource})`);
        }
      });
    });
  subscriptions
    .command('create')
    .description('create the missing subscriptions and renew those expiring within a day (what the hourly timer does)')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .option('--job <name>', 'only this job')
    .action(async (options: { config?: string; job?: string }) => {
      const kept = await withRuntime(options.config, (runtime) => runtime.subscriptions.keepAll(options.job));
      if (options.job !== undefined && kept.length === 0) throw new UsageError(`job "${options.job}" does not take Business Central notifications`);
      for (const k of kept) deps.print(`job ${k.job}: ${k.action}${k.subscriptionId ? ` ${k.subscriptionId}` : ''}${k.expirationDateTime ? ` until ${k.expirationDateTime}` : ''}${k.error ? `: ${k.error}` : ''}`);
      if (kept.some((k) => k.action === 'failed')) throw new Error('some subscriptions could not be kept');
    });
  subscriptions
    .command('delete')
    .description("delete a job's subscriptions (its notifications stop; the poll goes on)")
    .argument('<job>', 'job name')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .action(async (jobName: string, options: { config?: string }) => {
      await withRuntime(options.config, async (runtime) => {
        const job = (await runtime.subscriptions.jobs()).find((j) => j.name === jobName);
        if (!job) throw new UsageError(`job "${jobName}" does not take Business Central notifications`);
        deps.print(`job ${jobName}: ${await runtime.subscriptions.remove(job)} subscription(s) deleted`);
      });
    });
}
