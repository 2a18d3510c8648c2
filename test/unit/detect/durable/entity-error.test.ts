import * as df from 'durable-functions';
import type { OrchestrationContext } from 'durable-functions';
import { jobState } from '../../../../functions/JobState';
import { EntityOperationError, entityOperationError } from '../../../../src/detect/durable/entity-error';
import { runOrchestration, type ReplayBackend } from './support/durable-replay';

// Registration happens on import; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/** Calls the JobState entity with `operation` and returns what the orchestration sees. */
function caller(operation: string, input: unknown) {
  return function* (context: OrchestrationContext): Generator<df.Task, unknown, unknown> {
    try {
      return { result: yield context.df.callEntity(new df.EntityId('JobState', 'jobs'), operation, input) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
}

function backend(): ReplayBackend {
  return { activities: {}, entities: { JobState: jobState }, entityStates: new Map([['@jobstate@jobs', JSON.stringify([{ job: 'a', owner: 'o-1', renewedAt: '2026-03-01T08:00:00Z' }])]]) };
}

describe('a failed JobState operation, as the calling orchestration sees it', () => {
  it('carries the operation’s message through the entity runner, the response message and the replay engine', async () => {
    const b = backend();
    const run = await runOrchestration(caller('Reset', 'a'), null, b);
    expect(run.status).toBe('Completed');
    expect(run.output).toEqual({ error: 'JobState: unknown operation "Reset" (expected InProgress, Add, Renew, Remove)' });
    // The state is left as it was.
    expect(JSON.parse(b.entityStates.get('@jobstate@jobs') ?? 'null')).toEqual([{ job: 'a', owner: 'o-1', renewedAt: '2026-03-01T08:00:00Z' }]);
  });

  it('a plain Error would arrive as "[object Object]": the runner writes JSON.stringify(error), which is {}', async () => {
    const plain = function (context: df.EntityContext<unknown>): void {
      throw new Error(`JobState: unknown operation ${JSON.stringify(context.df.operationName)}`);
    };
    const run = await runOrchestration(caller('Reset', 'a'), null, { activities: {}, entities: { JobState: plain }, entityStates: new Map() });
    expect(run.output).toEqual({ error: '[object Object]' });
  });

  it('a successful operation still returns its result', async () => {
    const run = await runOrchestration(caller('InProgress', { job: 'a', at: '2026-03-01T08:30:00Z' }), null, backend());
    expect(run.output).toEqual({ result: true });
  });
});

describe('EntityOperationError', () => {
  it('serializes as its message and keeps the original as its cause', () => {
    const cause = new TypeError('bad input');
    const err = entityOperationError(cause);
    expect(err).toBeInstanceOf(EntityOperationError);
    expect(err.name).toBe('EntityOperationError');
    expect(JSON.stringify(err)).toBe('"bad input"');
    expect(err.cause).toBe(cause);
    expect(entityOperationError(err)).toBe(err);
    expect(entityOperationError('plain text').message).toBe('plain text');
  });
});
