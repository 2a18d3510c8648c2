import type { Command } from 'commander';
import { UsageError } from '../cli-error';
import { demoConfigDir, hostOptions, runHost, type HostCommandOptions } from './start';

// The seeding code (and better-sqlite3 with it) loads when a demo command runs, not with the CLI.
const seed = () => import('../../demo/seed');
const demoPush = () => import('../../demo/push');
const twoWay = () => import('../../demo/two-way');

/** How long `demo push-account` watches the ERP for the pushed change. */
const PUSH_WATCH_MS = 10_000;

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
    // The push job's shared secret: the host reads it from this app setting.
    const { DEMO_PUSH_SECRET_SETTING, demoPushSecret } = await demoPush();
    process.env[DEMO_PUSH_SECRET_SETTING] = demoPushSecret(dir);
    process.exitCode = await runHost({ ...opts, config: dir, resetState: opts.reset });
  });
  demo
    .command('change-account <id> <name>')
    .description('rename a CRM account and bump its modified_at, to watch the change arrive in the ERP')
    .action(async (id: string, name: string) => {
      if (!(await seed()).changeDemoAccount(demoConfigDir(), id, name)) throw new UsageError(`no CRM account "${id}" (ids run from A-0001 to A-2000)`);
      console.log(`CRM account ${id} is now "${name}"; the next GetChanges tick sends it to the ERP.`);
    });
  demo
    .command('edit <system> <id> <column> <value>')
    .description('set one column of an account profile in the CRM or the ERP, as its users would (two-way pair account-profiles); "" sets null')
    .action(async (system: string, id: string, column: string, value: string) => {
      const { EDITABLE, editProfile } = await twoWay();
      if (system !== 'crm' && system !== 'erp') throw new UsageError(`<system>: expected crm or erp, got ${JSON.stringify(system)}`);
      const columns: readonly string[] = EDITABLE[system].columns;
      if (!columns.includes(column)) throw new UsageError(`<column>: expected one of ${columns.join(', ')} for ${system}, got ${JSON.stringify(column)}`);
      if (!editProfile(demoConfigDir(), system, id, column, value)) throw new UsageError(`no ${system} profile "${id}"`);
      console.log(`${system.toUpperCase()} profile ${id}: ${column} is now ${value === '' ? 'null' : JSON.stringify(value)}; the pair's next run carries it to the other side.`);
    });
  demo
    .command('show-profile <id>')
    .description('show an account profile as the CRM and the ERP hold it (two-way pair account-profiles)')
    .action(async (id: string) => {
      const profile = (await twoWay()).readProfile(demoConfigDir(), id);
      console.log(`CRM ${JSON.stringify(profile.crm ?? null)}`);
      console.log(`ERP ${JSON.stringify(profile.erp ?? null)}`);
    });
  demo
    .command('push-account <id> <name>')
    .description('rename a CRM account and push its change to the running demo (POST /api/hooks/crm-accounts-to-erp, signed), then watch it arrive in the ERP')
    // `--port` is the demo's own option (the port the running demo listens on, default 7071).
    .action(async (id: string, name: string, _opts: unknown, command: Command) => {
      const { port } = command.optsWithGlobals<{ port: number }>();
      const { DEMO_PUSH_JOB, pushDemoAccount, waitForErpCustomerName } = await demoPush();
      const dir = demoConfigDir();
      const baseUrl = `http://127.0.0.1:${port}`;
      let pushed;
      const sentAt = Date.now();
      try {
        pushed = await pushDemoAccount({ dir, baseUrl, id, name });
      } catch (err) {
        // fetch fails with a TypeError when nothing listens; anything else (the demo databases) as it is.
        if (!(err instanceof TypeError)) throw err;
        throw new UsageError(`${baseUrl} does not answer (${String(err)}): is the demo running (npm start)? The CRM account is renamed; the next GetChanges tick sends it.`);
      }
      if (!pushed) throw new UsageError(`no CRM account "${id}" (ids run from A-0001 to A-2000)`);
      console.log(`CRM account ${id} is now "${name}"; POST /api/hooks/${DEMO_PUSH_JOB} → ${pushed.status} ${JSON.stringify(pushed.answer)}`);
      if (pushed.status !== 202) {
        process.exitCode = 1;
        return;
      }
      // The demo's mapping upper-cases names.
      const seenAt = await waitForErpCustomerName(dir, id, name.toUpperCase(), PUSH_WATCH_MS);
      if (seenAt === undefined) {
        console.log(`The ERP customer ${id} is not "${name.toUpperCase()}" after ${PUSH_WATCH_MS / 1000} s: see the status page (${baseUrl}/).`);
        process.exitCode = 1;
        return;
      }
      console.log(`ERP customer ${id} is "${name.toUpperCase()}" ${((seenAt - sentAt) / 1000).toFixed(2)} s after the notification was sent.`);
    });
}
