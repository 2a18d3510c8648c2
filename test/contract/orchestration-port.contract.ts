import { GET_CHANGES_ACTIVITY, type GetChangesInput, type JobStateRequest } from '../../src/detect/durable/durable-contract';
import { JOB_STATE, type OrchestrationPort } from '../../src/detect/durable/get-changes-orchestration';
import { errorMessage } from '../../src/platform/errors';

/** A generator written against the port only, as `getChangesOrchestration` is. */
type OrchestrationProbe = <TTask>(port: OrchestrationPort<TTask>) => Generator<TTask, unknown, unknown>;

/** One instance's run on an engine, as far as the contract looks. */
interface ProbeRun {
  status: 'Completed' | 'Failed';
  output?: unknown;
  /** Why the instance failed. */
  error?: string;
  /** The id the engine gave the instance. */
  instanceId: string;
  /** Each activity call: the input it received and the custom status set when it was called. */
  activityCalls: Array<{ input: unknown; status: unknown }>;
  /** The custom status once the instance finished. */
  finalStatus: unknown;
}

/** What an engine's test hands to {@link runOrchestrationPortContract}. */
export interface OrchestrationEngineFixture {
  /**
   * Runs `probe` as one instance started with `input`, to its end, with `activity` as the
   * engine's `GetChangesActivity` (throw to fail the task) and a fresh `JobState` entity.
   */
  run(probe: OrchestrationProbe, input: GetChangesInput, activity: (input: unknown) => unknown): Promise<ProbeRun>;
}

const noActivity = (): never => {
  throw new Error('the probe called no activity');
};

/**
 * The `OrchestrationPort` contract (`src/detect/durable/get-changes-orchestration.ts`), run against
 * the Durable Functions adapter on durable-functions' replay engine and against the local host's
 * `DurableDriver`: small probes written against the port see the same input, instance id, time,
 * task results and failures, custom status and continue-as-new on both engines.
 */
export function runOrchestrationPortContract(name: string, fixture: () => OrchestrationEngineFixture): void {
  describe(`OrchestrationPort contract: ${name}`, () => {
    it('input() is the start input, instanceId() the engine\'s id for the instance', async () => {
      const input = { jobs: ['crm-accounts', 'erp-orders'] };
      const run = await fixture().run(function* (port) {
        const before = { input: port.input(), instanceId: port.instanceId() };
        // Unchanged after a task (on a replaying engine, the generator runs again from the start).
        const held: unknown = yield port.callEntity(JOB_STATE, 'InProgress', { job: 'crm-accounts', owner: port.instanceId(), at: port.now().toISOString() });
        return { before, after: { input: port.input(), instanceId: port.instanceId() }, held };
      }, input, noActivity);
      const seen = { input, instanceId: run.instanceId };
      expect(run).toMatchObject({ status: 'Completed', output: { before: seen, after: seen, held: false } });
      expect(run.instanceId).toMatch(/^\S+$/);
    });

    it('callActivity: the activity receives the input and its result comes back across a JSON boundary', async () => {
      const received: unknown[] = [];
      const run = await fixture().run(function* (port) {
        const at = port.now().toISOString();
        const result: unknown = yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: 'crm-accounts', pageNumber: 0, at });
        const later = port.now().toISOString();
        return { at, later, result };
      }, { jobs: ['crm-accounts'] }, (input) => {
        received.push(input);
        return { page: 0, when: new Date('2026-03-01T09:00:00.000Z'), nested: { gone: undefined, kept: [1, 'two', null] } };
      });
      const output = run.output as { at: string; later: string; result: unknown };
      expect(run.status).toBe('Completed');
      expect(received).toEqual([{ jobName: 'crm-accounts', pageNumber: 0, at: output.at }]);
      expect(output.result).toEqual({ page: 0, when: '2026-03-01T09:00:00.000Z', nested: { kept: [1, 'two', null] } });
      expect(Date.parse(output.later)).toBeGreaterThanOrEqual(Date.parse(output.at));
    });

    it('a failed activity is thrown into the generator, which can catch it and go on', async () => {
      const run = await fixture().run(function* (port) {
        try {
          yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: 'crm-accounts', pageNumber: 0 });
          return 'not thrown';
        } catch (err) {
          return errorMessage(err);
        }
      }, { jobs: ['crm-accounts'] }, () => {
        throw new Error('source "crm-accounts" unreachable');
      });
      expect(run.status).toBe('Completed');
      expect(run.output).toEqual(expect.stringContaining('source "crm-accounts" unreachable'));
    });

    it('callEntity runs JobState operations in order on one entity, with their results', async () => {
      const run = await fixture().run(function* (port) {
        const lease = (job: string): JobStateRequest => ({ job, owner: port.instanceId(), at: port.now().toISOString() });
        const results: unknown[] = [];
        results.push(yield port.callEntity(JOB_STATE, 'InProgress', lease('crm-accounts')));
        results.push(yield port.callEntity(JOB_STATE, 'Add', lease('crm-accounts')));
        results.push(yield port.callEntity(JOB_STATE, 'Add', lease('crm-accounts')));
        results.push(yield port.callEntity(JOB_STATE, 'InProgress', lease('crm-accounts')));
        results.push(yield port.callEntity(JOB_STATE, 'Remove', { job: 'crm-accounts', owner: port.instanceId() }));
        results.push(yield port.callEntity(JOB_STATE, 'InProgress', lease('crm-accounts')));
        return results;
      }, { jobs: ['crm-accounts'] }, noActivity);
      expect(run).toMatchObject({ status: 'Completed', output: [false, true, false, true, true, false] });
    });

    it('a failed entity operation is thrown into the generator', async () => {
      const run = await fixture().run(function* (port) {
        try {
          yield port.callEntity(JOB_STATE, 'Steal', { job: 'crm-accounts' });
          return 'not thrown';
        } catch (err) {
          return errorMessage(err);
        }
      }, { jobs: ['crm-accounts'] }, noActivity);
      expect(run.status).toBe('Completed');
      expect(run.output).toEqual(expect.stringContaining('JobState: unknown operation "Steal" (expected InProgress, Add, Renew, Remove)'));
    });

    it('setStatus is the custom status while the next task runs; null clears it', async () => {
      const run = await fixture().run(function* (port) {
        port.setStatus({ jobName: 'crm-accounts', page: 0 });
        yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: 'crm-accounts', pageNumber: 0 });
        port.setStatus({ jobName: 'crm-accounts', page: 1 });
        yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: 'crm-accounts', pageNumber: 1 });
        port.setStatus(null);
        return 'done';
      }, { jobs: ['crm-accounts'] }, () => ({}));
      expect(run.activityCalls.map((c) => c.status)).toEqual([{ jobName: 'crm-accounts', page: 0 }, { jobName: 'crm-accounts', page: 1 }]);
      expect(run.finalStatus ?? null).toBeNull();
    });

    it('continueAsNew starts the same instance again with the new input; the last generation\'s output is the result', async () => {
      const run = await fixture().run(function* (port) {
        const input = port.input() as GetChangesInput;
        yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: input.jobs[0], pageNumber: 0 });
        if (input.jobs[0] === 'first') {
          port.continueAsNew({ jobs: ['second', 'erp-orders'] });
          return 'first generation';
        }
        return { input, instanceId: port.instanceId() };
      }, { jobs: ['first'] }, () => ({}));
      expect(run).toMatchObject({ status: 'Completed', output: { input: { jobs: ['second', 'erp-orders'] }, instanceId: run.instanceId } });
      expect(run.activityCalls.map((c) => c.input)).toEqual([{ jobName: 'first', pageNumber: 0 }, { jobName: 'second', pageNumber: 0 }]);
    });

    it('an error the generator does not catch fails the instance with its message', async () => {
      const run = await fixture().run(function* (port) {
        yield port.callActivity(GET_CHANGES_ACTIVITY, { jobName: 'crm-accounts', pageNumber: 0 });
        throw new Error('the probe gives up');
      }, { jobs: ['crm-accounts'] }, () => ({}));
      expect(run.status).toBe('Failed');
      expect(run.error).toEqual(expect.stringContaining('the probe gives up'));
    });
  });
}
