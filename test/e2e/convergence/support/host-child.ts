/**
 * Child process of the convergence and crash suites: the real CLI `highwater start`, with the
 * test-only hooks of `test/e2e/crash/support/fault-hooks.ts` installed first (send log, optional
 * SIGKILL point). Run as:
 *   node -r ./src/platform/swc-register.js test/e2e/convergence/support/host-child.ts --config DIR
 * with AzureWebJobsStorage, HIGHWATER_DATA_DIR, GetChangesSchedule (and HW_E2E_*) in the env.
 */
import { installFaultHooks } from '../../crash/support/fault-hooks';
import { runCli } from '../../../../src/cli/main';

installFaultHooks();
runCli(['start', ...process.argv.slice(2), '--port', '0']).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
