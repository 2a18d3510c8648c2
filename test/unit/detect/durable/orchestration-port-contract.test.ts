import type { OrchestrationContext } from 'durable-functions';
import { jobState } from '../../../../functions/JobState';
import { durableOrchestrationPort } from '../../../../functions/support/durable-port';
import type { JobActivityResult } from '../../../../src/detect/durable/durable-contract';
import { DurableDriver } from '../../../../src/host/durable-driver';
import { runOrchestrationPortContract } from '../../../contract/orchestration-port.contract';
import { runOrchestration } from './support/durable-replay';

// Importing functions/ registers them; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/** The Functions app's adapter on `context.df`, run by durable-functions' real replay engine. */
runOrchestrationPortContract('durableOrchestrationPort on the durable-functions replay engine', () => ({
  run: async (probe, input, activity) => {
    const run = await runOrchestration((context: OrchestrationContext) => probe(durableOrchestrationPort(context)), input, {
      activities: { GetChangesActivity: activity },
      entities: { JobState: jobState },
      entityStates: new Map(),
    });
    const activityCalls = run.calls.flatMap((call, i) => (call.kind === 'activity' ? [{ input: call.input, status: run.statusAtCall[i] }] : []));
    return { status: run.status, output: run.output, error: run.error, instanceId: 'instance-1', activityCalls, finalStatus: run.customStatus };
  },
}));

let instances = 0;

/** The local host's engine: the driver's own port, a second per `now()` so time moves. */
runOrchestrationPortContract('DurableDriver (local host)', () => ({
  run: async (probe, input, activity) => {
    let tick = Date.parse('2026-03-01T08:00:00Z');
    const clock = { now: () => new Date((tick += 1000)) };
    const activityCalls: Array<{ input: unknown; status: unknown }> = [];
    const instanceId = `probe${++instances}`;
    const driver: DurableDriver = new DurableDriver({
      clock,
      orchestration: probe,
      activity: async (activityInput) => {
        activityCalls.push({ input: activityInput, status: driver.status(instanceId)?.customStatus });
        return activity(activityInput) as JobActivityResult;
      },
    });
    driver.start(input, instanceId);
    const final = await driver.waitForCompletion(instanceId);
    await driver.close();
    return {
      status: final.runtimeStatus === 'Completed' ? 'Completed' : 'Failed',
      output: final.output,
      error: final.error,
      instanceId: final.instanceId,
      activityCalls,
      finalStatus: final.customStatus,
    };
  },
}));
