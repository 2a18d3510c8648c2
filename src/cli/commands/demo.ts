import type { Command } from 'commander';
import { UsageError } from '../cli-error';
import { demoConfigDir, hostOptions, runHost, type HostCommandOptions } from './start';

// The seeding code (and better-sqlite3 with it) loads when a demo command runs, not with the CLI.
const seed = () => import('../../../examples/demo/seed');

/** `highwater demo`: the demo behind `npm start` (README walkthrough). */
export function registerDemoCommands(program: Command): void {
  const demo = hostOptions(
    program
      .command('demo')
      .description('seed the demo CRM and ERP databases (if missing) and run the local host on examples/demo')
      .option('--reset', 'start over: recreate the demo databases; clear the demo jobs\' watermarks, applied hashes and recorded deletions, and the local queues'),
  ).action(async (opts: Omit<HostCommandOptions, 'config'> & { reset?: boolean }) => {
    const dir = demoConfigDir();
    if ((await seed()).seedDemo(dir, { reset: opts.reset })) console.log(`Seeded the demo databases in ${dir} (crm.db, erp.db).`);
    process.exitCode = await runHost({ ...opts, config: dir, resetState: opts.reset });
  });
  demo
    .command('change-account <id> <name>')
    .description('rename a CRM account and bump its modified_at, to watch the change arrive in the ERP')
    .action(async (id: string, name: string) => {
      if (!(await seed()).changeDemoAccount(demoConfigDir(), id, name)) throw new UsageError(`no CRM account "${id}" (ids run from A-0001 to A-2000)`);
      console.log(`CRM account ${id} is now "${name}"; the next GetChanges tick sends it to the ERP.`);
    });
}
