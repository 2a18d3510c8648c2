/**
 * Child process: the real dead-letter mover (`runMover`), optionally killed with SIGKILL before
 * its N-th `complete` — after that message's resubmission was sent, before the original is
 * removed (`HW_E2E_MOVER_KILL_AFTER=N`). Arguments are the mover's own.
 */
import { createBus } from '../../../../src/bus/create-bus';
import type { ReceivedMessage } from '../../../../src/bus/message-bus';
import { runMover } from '../../../../tools/dead-letter-mover/main';
import { CRASH_MARKER_ENV, crashNow } from './fault-hooks';

const killAfter = Number(process.env.HW_E2E_MOVER_KILL_AFTER ?? 0);
let completes = 0;

runMover(process.argv.slice(2), {
  openBus: async (settings) => {
    const bus = await createBus(settings);
    if (killAfter > 0) {
      const complete = bus.complete.bind(bus);
      bus.complete = async (message: ReceivedMessage) => {
        if (++completes === killAfter) crashNow(process.env[CRASH_MARKER_ENV], `mover: resubmission ${completes} sent, original not completed`);
        return complete(message);
      };
    }
    return bus;
  },
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
