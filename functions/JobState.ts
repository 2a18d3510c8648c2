import * as df from 'durable-functions';
import type { EntityContext } from 'durable-functions';
import { JOB_STATE_ENTITY } from '../src/detect/durable/durable-contract';
import { entityOperationError } from '../src/detect/durable/entity-error';
import { applyJobStateOperation, type JobState, type JobStateStep } from '../src/detect/durable/job-state';

/**
 * The `JobState` entity: `InProgress`, `Add`, `Renew`, `Remove` of a job lease
 * (src/detect/durable/job-state.ts), each returning a boolean. A failed operation (unknown name,
 * bad input) leaves the state as it was and fails the caller's call with the operation's message.
 */
export function jobState(context: EntityContext<JobState>): void {
  let step: JobStateStep;
  try {
    step = applyJobStateOperation(context.df.getState(() => []), context.df.operationName, context.df.getInput<unknown>());
  } catch (err) {
    throw entityOperationError(err);
  }
  context.df.setState(step.state);
  context.df.return(step.result);
}

df.app.entity(JOB_STATE_ENTITY, jobState);
